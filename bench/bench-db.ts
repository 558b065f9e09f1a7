/**
 * A benchmark's own database on the local PostgreSQL, kept between runs (filling is slow) and migrated: created if
 * missing, dropped and recreated with `refill`. Env: BENCH_PG_ADMIN_URL (default postgresql://postgres@127.0.0.1:5432/postgres).
 */
import os from "node:os";
import pg from "pg";
import { applyMigrations } from "../db/migrate";

const ADMIN = process.env.BENCH_PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export function benchDbUrl(name: string): string {
  const u = new URL(ADMIN);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A connected client on the benchmark's database, migrated (the caller ends it). */
export async function openBenchDb(name: string, refill: boolean): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: ADMIN });
  await admin.connect();
  const exists = (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount;
  if (exists && refill) await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
  if (!exists || refill) await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const c = new pg.Client({ connectionString: benchDbUrl(name) });
  await c.connect();
  await applyMigrations(c);
  return c;
}

/** A finished run of `steps` steps with one point per step for each key (a sine with noise, 30 s apart). */
export async function insertMetricRun(c: pg.Client, run: { id: string; name: string; steps: number; keys: string[] }): Promise<void> {
  await c.query(
    `INSERT INTO "Run" (id, name, status, config, environment, "policyModel", seed, "totalSteps", step, tags, "launchedBy", "updatedAt")
     VALUES ($1, $2, 'succeeded', '{}', 'simulated', 'tiny', 0, $3, $3, '{}', 'api', now())`,
    [run.id, run.name, run.steps],
  );
  await c.query(
    `INSERT INTO "MetricPoint" ("runId", key, step, value, "wallTime")
     SELECT $1, k, s, sin(s / 1000.0) + random() * 0.1, now() - make_interval(secs => ($2 - s) * 30)
     FROM generate_series(0, $2 - 1) s, unnest($3::text[]) k`,
    [run.id, run.steps, run.keys],
  );
}

/** The rollups the trainer maintains step by step (db/metric-rollups.ts), built for a whole run in one pass per width. */
export async function insertRollups(c: pg.Client, runId: string, keys?: string[]): Promise<void> {
  for (const width of [16, 256, 4096]) {
    await c.query(
      `INSERT INTO "MetricRollup" ("runId", "key", "width", "bucket", "count", "sum", "min", "max", "lastStep", "lastWallTime")
       SELECT "runId", key, $2, step / $2, count(*), sum(value), min(value), max(value), max(step), max("wallTime")
       FROM "MetricPoint" WHERE "runId" = $1 AND ($3::text[] IS NULL OR key = ANY($3)) GROUP BY "runId", key, step / $2`,
      [runId, width, keys ?? null],
    );
  }
}

/** Load average and machine facts for a benchmark's `conditions` (figures under load are not comparable). */
export function benchConditions(loadAverageBefore: number[]): Record<string, unknown> {
  return {
    cores: os.availableParallelism(),
    loadAverageBefore,
    loadAverageAfter: loadAverageNow(),
    node: process.version,
  };
}

export function loadAverageNow(): number[] {
  return os.loadavg().map((l) => Number(l.toFixed(2)));
}
