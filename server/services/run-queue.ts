/**
 * Where a queued run stands: workers claim the oldest queued run first (db/lease-queue.ts, ORDER BY "createdAt",
 * id) and train one run each at a time, so its place is the number of runs queued before it, and what holds it is
 * either the runs training now or the absence of any worker.
 */
import type { PrismaClient } from "../../db/client";
import { notFound } from "../errors";
import { DB_NOW } from "../../db/lease-queue";
import { WORKER_LAUNCHED_SQL } from "../../db/run-launcher";

export interface RunQueueStanding {
  /** 1 for the next run a free worker claims. */
  position: number;
  /** Runs queued in all. */
  queued: number;
  /** Runs a live worker is training now (their lease has not lapsed). */
  training: number;
  queuedSeconds: number;
}

/** null when the run is not queued (or is an imported run, which no worker trains, or a Slurm launcher's run). */
export async function getRunQueueStanding(db: PrismaClient, id: string): Promise<RunQueueStanding | null> {
  const run = await db.run.findUnique({ where: { id }, select: { status: true, source: true, createdAt: true, config: true } });
  if (!run) throw notFound("Run", id);
  if (run.status !== "queued" || run.source !== "rollout-lab") return null;
  // A Slurm run waits in Slurm's queue, not the workers' (its page shows the job's state and reason instead).
  if ((run.config as { execution?: { launcher?: string } } | null)?.execution?.launcher === "slurm") return null;
  // Only runs a worker would claim stand in this queue: a Slurm run waits in Slurm's (WORKER_LAUNCHED_SQL).
  const [counts] = await db.$queryRawUnsafe<{ ahead: bigint; queued: bigint; training: bigint }[]>(
    `WITH me AS (SELECT "createdAt" AS at FROM "Run" WHERE id = $1)
     SELECT count(*) FILTER (WHERE status = 'queued' AND ("createdAt" < me.at OR ("createdAt" = me.at AND id < $1))) AS ahead,
            count(*) FILTER (WHERE status = 'queued') AS queued,
            count(*) FILTER (WHERE status = 'running' AND "leaseExpiresAt" > ${DB_NOW}) AS training
       FROM "Run", me
      WHERE source = 'rollout-lab' AND status IN ('queued', 'running') AND ${WORKER_LAUNCHED_SQL}`,
    id,
  );
  const [ahead, queued, training] = [Number(counts.ahead), Number(counts.queued), Number(counts.training)];
  return { position: ahead + 1, queued, training, queuedSeconds: Math.max(0, Math.round((Date.now() - run.createdAt.getTime()) / 1000)) };
}
