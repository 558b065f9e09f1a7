/**
 * Multi-resolution metric summaries (MetricRollup): for each key, buckets of 16, 256 and 4096 steps holding count,
 * sum, min and max. The trainer refreshes the buckets containing a step right after recording it; each level is
 * recomputed from the level below (at most 16 rows per key), so the cost per step is constant however long the run.
 * Charts of long runs read these instead of every point (server/services/metrics.ts).
 */
import { Prisma } from "../generated/prisma/client";

/** Bucket widths, each 16× the previous (the refresh reads 16 children per bucket). */
export const ROLLUP_WIDTHS = [16, 256, 4096] as const;
const FANOUT = 16;

/** The rollup width to read for a span of steps: the coarsest that still gives at least maxPoints / 2 buckets. */
export function chooseRollupWidth(span: number, maxPoints: number): number | null {
  const usable = ROLLUP_WIDTHS.filter((w) => Math.ceil(span / w) >= maxPoints / 2);
  return usable.length ? usable[usable.length - 1] : null;
}

type Sql = Pick<Prisma.TransactionClient, "$executeRaw">;

const UPSERT_TAIL = Prisma.sql`
  ON CONFLICT ("runId", "key", "width", "bucket") DO UPDATE SET
    "count" = EXCLUDED."count", "sum" = EXCLUDED."sum", "min" = EXCLUDED."min", "max" = EXCLUDED."max",
    "lastStep" = EXCLUDED."lastStep", "lastWallTime" = EXCLUDED."lastWallTime"`;

export interface RefreshOptions {
  /**
   * No point of these steps was deleted since the last refresh, only added or changed (a step recorded for the first
   * time, an upsert): a bucket can then only gain keys, so the upserts alone are exact and the DELETE per level is
   * skipped (3 statements instead of 6).
   */
  noPointsDeleted?: boolean;
}

/** Recompute, for every key, the buckets that contain `step` (after its points were written or deleted). */
export async function refreshMetricRollups(db: Sql, runId: string, step: number, options: RefreshOptions = {}): Promise<void> {
  await refreshMetricRollupsForSteps(db, runId, [step], options);
}

/**
 * Recompute, for every key, the buckets containing any of `steps`: one DELETE and one INSERT … GROUP BY per level,
 * whatever the number of steps (a 1,000-step ingest batch touches 63 + 4 + 1 buckets, not 1,000 × 3). Each level
 * reads a step (or child-bucket) range of the run so the primary key's (run, key, step) order serves it.
 */
export async function refreshMetricRollupsForSteps(db: Sql, runId: string, steps: number[], options: RefreshOptions = {}): Promise<void> {
  if (steps.length === 0) return;
  let childWidth = 1;
  for (const width of ROLLUP_WIDTHS) {
    const buckets = [...new Set(steps.map((s) => Math.floor(s / width)))];
    const lo = Math.min(...buckets);
    const hi = Math.max(...buckets) + 1;
    // Without it a key whose points were all deleted would keep its stale bucket row.
    if (!options.noPointsDeleted) {
      await db.$executeRaw`DELETE FROM "MetricRollup" WHERE "runId" = ${runId} AND "width" = ${width} AND "bucket" = ANY(${buckets}::int[])`;
    }
    if (childWidth === 1) {
      await db.$executeRaw`
        INSERT INTO "MetricRollup" ("runId", "key", "width", "bucket", "count", "sum", "min", "max", "lastStep", "lastWallTime")
        SELECT "runId", "key", ${width}, "step" / ${width}, count(*), sum("value"), min("value"), max("value"), max("step"), max("wallTime")
        FROM "MetricPoint"
        WHERE "runId" = ${runId} AND "step" >= ${lo * width} AND "step" < ${hi * width} AND "step" / ${width} = ANY(${buckets}::int[])
        GROUP BY 1, 2, 4
        ${UPSERT_TAIL}`;
    } else {
      await db.$executeRaw`
        INSERT INTO "MetricRollup" ("runId", "key", "width", "bucket", "count", "sum", "min", "max", "lastStep", "lastWallTime")
        SELECT "runId", "key", ${width}, "bucket" / ${FANOUT}, sum("count"), sum("sum"), min("min"), max("max"), max("lastStep"), max("lastWallTime")
        FROM "MetricRollup"
        WHERE "runId" = ${runId} AND "width" = ${childWidth} AND "bucket" >= ${lo * FANOUT} AND "bucket" < ${hi * FANOUT}
          AND "bucket" / ${FANOUT} = ANY(${buckets}::int[])
        GROUP BY 1, 2, 4
        ${UPSERT_TAIL}`;
    }
    childWidth = width;
  }
}

/** After deleting every point at or after `fromStep` (a resume): drop later buckets and redo the partial ones. */
export async function discardMetricRollupsFrom(db: Sql, runId: string, fromStep: number): Promise<void> {
  for (const width of ROLLUP_WIDTHS) {
    await db.$executeRaw`DELETE FROM "MetricRollup" WHERE "runId" = ${runId} AND "width" = ${width} AND "bucket" >= ${Math.floor(fromStep / width)}`;
  }
  if (fromStep > 0) await refreshMetricRollups(db, runId, fromStep - 1);
}

/** Recompute every bucket of a run (after bulk-loading points, e.g. the demo seed). */
export async function rebuildMetricRollups(db: Sql, runId: string): Promise<void> {
  await db.$executeRaw`DELETE FROM "MetricRollup" WHERE "runId" = ${runId}`;
  const base = ROLLUP_WIDTHS[0];
  await db.$executeRaw`
    INSERT INTO "MetricRollup" ("runId", "key", "width", "bucket", "count", "sum", "min", "max", "lastStep", "lastWallTime")
    SELECT "runId", "key", ${base}, "step" / ${base}, count(*), sum("value"), min("value"), max("value"), max("step"), max("wallTime")
    FROM "MetricPoint" WHERE "runId" = ${runId} GROUP BY 1, 2, 4`;
  for (let level = 1; level < ROLLUP_WIDTHS.length; level++) {
    await db.$executeRaw`
      INSERT INTO "MetricRollup" ("runId", "key", "width", "bucket", "count", "sum", "min", "max", "lastStep", "lastWallTime")
      SELECT "runId", "key", ${ROLLUP_WIDTHS[level]}, "bucket" / ${FANOUT}, sum("count"), sum("sum"), min("min"), max("max"), max("lastStep"), max("lastWallTime")
      FROM "MetricRollup" WHERE "runId" = ${runId} AND "width" = ${ROLLUP_WIDTHS[level - 1]} GROUP BY 1, 2, 4`;
  }
}
