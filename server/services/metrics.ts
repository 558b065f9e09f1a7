/**
 * Metric series for charts, downsampled in the database so a 100k-step run loads as fast as a 100-step one. Each
 * returned point is a bucket of steps: its mean, min and max (the band keeps spikes visible that a plain mean would
 * hide), placed at the bucket's last step. Short series come from the points themselves; long ones from the
 * trainer-maintained rollups (db/metric-rollups.ts), so a query reads at most ~2×maxPoints rows per key.
 */
import type { PrismaClient } from "../../db/client";
import { ROLLUP_WIDTHS, chooseRollupWidth } from "../../db/metric-rollups";

export interface SeriesPoint {
  step: number;
  value: number;
  min: number;
  max: number;
  wallTime: string;
}

interface BucketRow {
  step: number;
  value: number;
  min: number;
  max: number;
  wall: Date;
}

export async function listMetricKeys(db: PrismaClient, runId: string): Promise<string[]> {
  // Keys from the coarsest rollup level (one row per key per 4096 steps) rather than every point.
  const rows = await db.$queryRaw<{ key: string }[]>`
    SELECT DISTINCT key FROM "MetricRollup" WHERE "runId" = ${runId} AND "width" = ${ROLLUP_WIDTHS[ROLLUP_WIDTHS.length - 1]} ORDER BY key`;
  return rows.map((r) => r.key);
}

interface KeyRow extends BucketRow {
  key: string;
}

type Plan = { kind: "points"; lo: number; per: number } | { kind: "rollup"; width: number; merge: number };

function planFor(lo: number, hi: number, maxPoints: number): Plan {
  const span = hi - lo + 1;
  const width = chooseRollupWidth(span, maxPoints);
  if (width === null) return { kind: "points", lo, per: Math.max(1, Math.ceil(span / maxPoints)) };
  return { kind: "rollup", width, merge: Math.max(1, Math.ceil(Math.ceil(span / width) / maxPoints)) };
}

/** Every key sharing one plan is read in one query (a run's keys usually span the same steps, so one in all). */
async function readPlan(db: PrismaClient, runId: string, keys: string[], plan: Plan): Promise<KeyRow[]> {
  if (plan.kind === "points") {
    return db.$queryRaw<KeyRow[]>`
      SELECT key, max(step)::int AS step, avg(value) AS value, min(value) AS min, max(value) AS max, max("wallTime") AS wall
      FROM "MetricPoint" WHERE "runId" = ${runId} AND key = ANY(${keys})
      GROUP BY key, (step - ${plan.lo}::int) / ${plan.per}::int ORDER BY key, 2`;
  }
  if (plan.merge === 1) {
    // The rollup level already has the right resolution: its rows as they are, one JSON text per key — decoding
    // thousands of small rows in the driver cost more than the query itself (7.8k rows: ~60 ms vs ~10 ms).
    const packed = await db.$queryRaw<{ key: string; pts: string }[]>`
      SELECT key, json_agg(json_build_array("lastStep", "sum" / "count", "min", "max", floor(extract(epoch FROM "lastWallTime") * 1000)) ORDER BY "bucket")::text AS pts
      FROM "MetricRollup" WHERE "runId" = ${runId} AND key = ANY(${keys}) AND "width" = ${plan.width}
      GROUP BY key`;
    return packed.flatMap(({ key, pts }) =>
      (JSON.parse(pts) as [number, number, number, number, number][]).map(([step, value, min, max, ms]) => ({
        key,
        step,
        value,
        min,
        max,
        wall: new Date(ms),
      })),
    );
  }
  return db.$queryRaw<KeyRow[]>`
    SELECT key, "bucket" / ${plan.merge}::int AS b, max("lastStep")::int AS step, sum("sum") / sum("count") AS value, min("min") AS min,
           max("max") AS max, max("lastWallTime") AS wall
    FROM "MetricRollup" WHERE "runId" = ${runId} AND key = ANY(${keys}) AND "width" = ${plan.width}
    GROUP BY key, b ORDER BY key, b`;
}

export async function getMetricSeries(
  db: PrismaClient,
  input: { runId: string; keys: string[]; maxPoints: number },
): Promise<Record<string, SeriesPoint[]>> {
  const out: Record<string, SeriesPoint[]> = Object.fromEntries(input.keys.map((k) => [k, []]));
  if (input.keys.length === 0) return out;
  // First and last step of each key: two index probes per key, one round trip.
  const bounds = await db.$queryRaw<{ key: string; lo: number | null; hi: number | null }[]>`
    SELECT k AS key,
           (SELECT min(step) FROM "MetricPoint" WHERE "runId" = ${input.runId} AND key = k) AS lo,
           (SELECT max(step) FROM "MetricPoint" WHERE "runId" = ${input.runId} AND key = k) AS hi
    FROM unnest(${input.keys}::text[]) AS k`;
  const byPlan = new Map<string, { plan: Plan; keys: string[] }>();
  for (const b of bounds) {
    if (b.lo === null || b.hi === null) continue;
    const plan = planFor(b.lo, b.hi, input.maxPoints);
    const id = JSON.stringify(plan);
    byPlan.set(id, { plan, keys: [...(byPlan.get(id)?.keys ?? []), b.key] });
  }
  const results = await Promise.all([...byPlan.values()].map(({ plan, keys }) => readPlan(db, input.runId, keys, plan)));
  for (const r of results.flat()) out[r.key].push({ step: r.step, value: r.value, min: r.min, max: r.max, wallTime: r.wall.toISOString() });
  return out;
}

/** A few points of each run's mean reward, for the runs list's sparklines (one downsampled series per run). */
export async function getRewardSparklines(db: PrismaClient, runIds: string[], points = 30): Promise<Record<string, number[]>> {
  const series = await Promise.all(
    runIds.map(
      async (runId) => [runId, (await getMetricSeries(db, { runId, keys: ["reward/mean"], maxPoints: points }))["reward/mean"]] as const,
    ),
  );
  return Object.fromEntries(series.map(([id, pts]) => [id, pts.map((p) => p.value)]));
}

export interface RunSummary {
  /** Highest mean reward of any step (null before the first scored step). */
  bestReward: number | null;
  /** The KL of the last step that logged one (`kl`, the update's mean KL to the reference). */
  kl: number | null;
  /** What the run's simulator and judge calls cost so far: the sum of every step's llm/<role>/cost_usd. */
  costUsd: number | null;
}

/** The runs table's metric columns, for the runs on one page (one query; each column an index range scan). */
export async function getRunSummaries(db: PrismaClient, runIds: string[]): Promise<Record<string, RunSummary>> {
  if (runIds.length === 0) return {};
  const rows = await db.$queryRaw<{ id: string; best: number | null; kl: number | null; cost: number | null }[]>`
    SELECT r.id,
      (SELECT max(value) FROM "MetricPoint" WHERE "runId" = r.id AND key = 'reward/mean') AS best,
      (SELECT value FROM "MetricPoint" WHERE "runId" = r.id AND key = 'kl' ORDER BY step DESC LIMIT 1) AS kl,
      (SELECT sum(value) FROM "MetricPoint" WHERE "runId" = r.id AND key LIKE 'llm/%/cost_usd') AS cost
    FROM unnest(${runIds}::text[]) AS r(id)`;
  return Object.fromEntries(rows.map((r) => [r.id, { bestReward: r.best, kl: r.kl, costUsd: r.cost }]));
}
