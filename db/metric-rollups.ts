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

/** Recompute, for every key, the buckets that contain `step` (after its points were written or deleted). */
export async function refreshMetricRollups(db: Sql, runId: string, step: number): Promise<void> {
  const base = ROLLUP_WIDTHS[0];
  const b0 = Math.floor(step / base);
  await db.$executeRaw`DELETE FROM "MetricRollup" WHERE "runId" = ${runId} AND "width" = ${base} AND "bucket" = ${b0}`;
  await db.$executeRaw`
    INSERT INTO "MetricRollup" ("runId", "key", "width", "bucket", "count", "sum", "min", "max", "lastStep", "lastWallTime")
    SELECT "runId", "key", ${base}, ${b0}, count(*), sum("value"), min("value"), max("value"), max("step"), max("wallTime")
    FROM "MetricPoint" WHERE "runId" = ${runId} AND "step" >= ${b0 * base} AND "step" < ${(b0 + 1) * base}
    GROUP BY "runId", "key"
    ${UPSERT_TAIL}`;
  for (let level = 1; level < ROLLUP_WIDTHS.length; level++) {
    const width = ROLLUP_WIDTHS[level];
    const child = ROLLUP_WIDTHS[level - 1];
    const bucket = Math.floor(step / width);
    await db.$executeRaw`DELETE FROM "MetricRollup" WHERE "runId" = ${runId} AND "width" = ${width} AND "bucket" = ${bucket}`;
    await db.$executeRaw`
      INSERT INTO "MetricRollup" ("runId", "key", "width", "bucket", "count", "sum", "min", "max", "lastStep", "lastWallTime")
      SELECT "runId", "key", ${width}, ${bucket}, sum("count"), sum("sum"), min("min"), max("max"), max("lastStep"), max("lastWallTime")
      FROM "MetricRollup" WHERE "runId" = ${runId} AND "width" = ${child} AND "bucket" >= ${bucket * FANOUT} AND "bucket" < ${(bucket + 1) * FANOUT}
      GROUP BY "runId", "key"
      ${UPSERT_TAIL}`;
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
