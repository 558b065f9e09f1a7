/**
 * Where a queued run stands: workers claim the oldest queued run first (db/lease-queue.ts, ORDER BY "createdAt",
 * id) and train one run each at a time, so its place is the number of runs queued before it, and what holds it is
 * either the runs training now or the absence of any worker.
 */
import type { PrismaClient } from "../../db/client";
import { notFound } from "../errors";

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
  const trained = { source: "rollout-lab" } as const;
  const [ahead, queued, training] = await Promise.all([
    db.run.count({
      where: {
        ...trained,
        status: "queued",
        OR: [{ createdAt: { lt: run.createdAt } }, { createdAt: run.createdAt, id: { lt: id } }],
      },
    }),
    db.run.count({ where: { ...trained, status: "queued" } }),
    db.run.count({ where: { ...trained, status: "running", leaseExpiresAt: { gt: new Date() } } }),
  ]);
  return { position: ahead + 1, queued, training, queuedSeconds: Math.max(0, Math.round((Date.now() - run.createdAt.getTime()) / 1000)) };
}
