/**
 * Writing metric points in bulk: one INSERT … SELECT FROM unnest(keys, steps, values) per chunk instead of one
 * statement per point. Why: the ingest API wrote each point with its own INSERT inside a 5 s transaction (~700
 * points/s), so a 1,000-step × 20-key history failed half way. The trainer's per-step record and the ingest API
 * both write through here, then refresh the rollups of every touched step at once (db/metric-rollups.ts).
 *
 * Runs inside the caller's transaction. A (key, step) written twice in one call keeps its last value (Postgres
 * refuses ON CONFLICT DO UPDATE touching one row twice in a statement, so duplicates are merged here first).
 */
import type { Prisma } from "../generated/prisma/client";
import { refreshMetricRollupsForSteps } from "./metric-rollups";

export interface MetricPointInput {
  key: string;
  step: number;
  value: number;
}

type Sql = Pick<Prisma.TransactionClient, "$executeRaw" | "$executeRawUnsafe">;

/** Rows per statement: three arrays of this length are one parameter each, well within what a statement carries. */
export const METRIC_POINTS_PER_STATEMENT = 10_000;

/** Upserts the points of one run (a retry overwrites the same key and step) and refreshes their rollups. */
export async function upsertMetricPoints(
  tx: Sql,
  runId: string,
  points: MetricPointInput[],
  opts: { wallTime?: Date; chunkSize?: number } = {},
): Promise<number> {
  const unique = new Map<string, MetricPointInput>();
  for (const p of points) unique.set(`${p.step}\u0000${p.key}`, p);
  // In primary-key order (key, step): each key's new points land side by side in the index, not one page each.
  const rows = [...unique.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.step - b.step));
  if (rows.length === 0) return 0;
  const wallTime = (opts.wallTime ?? new Date()).toISOString();
  const chunk = opts.chunkSize ?? METRIC_POINTS_PER_STATEMENT;
  for (let i = 0; i < rows.length; i += chunk) {
    const part = rows.slice(i, i + chunk);
    await tx.$executeRawUnsafe(
      `INSERT INTO "MetricPoint" ("runId", "key", "step", "value", "wallTime")
       SELECT $1, k, s, v, $5::timestamp FROM unnest($2::text[], $3::int[], $4::float8[]) AS p(k, s, v)
       ON CONFLICT ("runId", "key", "step") DO UPDATE SET "value" = EXCLUDED."value", "wallTime" = EXCLUDED."wallTime"`,
      runId,
      part.map((p) => p.key),
      part.map((p) => p.step),
      part.map((p) => p.value),
      wallTime,
    );
  }
  await refreshMetricRollupsForSteps(
    tx,
    runId,
    rows.map((p) => p.step),
  );
  return rows.length;
}
