/**
 * The run queue in Postgres: claiming, heartbeating and releasing runs (a leased queue, db/lease-queue.ts).
 */
import type { PrismaClient } from "../../generated/prisma/client";
import { DB_NOW, claimLeased, leaseEndSql, type LeasedQueue } from "../../db/lease-queue";
import { WORKER_LAUNCHED_SQL } from "../../db/run-launcher";
import { firstLine } from "../../lib/error-text";
import { storableText } from "../../lib/storable";

export interface ClaimedRun {
  id: string;
  config: unknown;
  seed: number;
  totalSteps: number;
  step: number;
  claims: number;
  /** Claims in a row after its worker died (see the crashes column); 0 when claimed from the queue. */
  crashes: number;
  cancelRequested: boolean;
}

/**
 * Runs are claimed oldest first. Runs trained elsewhere and imported (source other than 'rollout-lab') are never
 * claimed, nor runs for a Slurm launcher (its job claims the run by id, claimRunById). `crashes` counts only claims of
 * a run whose worker died (it was still running), so graceful restarts never fail a run.
 */
const RUN_QUEUE: LeasedQueue = {
  table: "Run",
  countsClaims: true,
  onlyWhere: `source = 'rollout-lab' AND ${WORKER_LAUNCHED_SQL}`,
  alsoSet: `crashes = CASE WHEN status = 'running' THEN crashes + 1 ELSE 0 END, "heartbeatAt" = ${DB_NOW}, "updatedAt" = ${DB_NOW}`,
  returning: `id, config, seed, "totalSteps", step, claims, crashes, "cancelRequested"`,
};

/** Claim the oldest queued run, or a running run whose lease expired (its worker died); null when there is none. */
export async function claimNextRun(db: PrismaClient, workerId: string, leaseMs: number): Promise<ClaimedRun | null> {
  return claimLeased<ClaimedRun>(db, RUN_QUEUE, workerId, leaseMs);
}

/**
 * Claim one given run (a Slurm job trains exactly the run it was submitted for): queued, or running under a lapsed
 * lease; null when it is finished or another trainer holds it. The same claim as the queue's, so a job resumes a run
 * exactly as a worker does.
 */
export async function claimRunById(db: PrismaClient, runId: string, workerId: string, leaseMs: number): Promise<ClaimedRun | null> {
  // The id is spliced into SQL (LeasedQueue.onlyWhere): only a cuid-like id gets that far.
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(runId)) throw new Error(`"${runId}" is not a run id`);
  return claimLeased<ClaimedRun>(db, { ...RUN_QUEUE, onlyWhere: `source = 'rollout-lab' AND id = '${runId}'` }, workerId, leaseMs);
}

export interface HeartbeatResult {
  /** false when this worker no longer holds the lease (it expired and another worker claimed the run). */
  held: boolean;
  cancelRequested: boolean;
}

/** Extend the lease; also reports a cancel request so it takes effect without another query. */
export async function heartbeat(db: PrismaClient, runId: string, workerId: string, leaseMs: number): Promise<HeartbeatResult> {
  const rows = await db.$queryRawUnsafe<{ cancelRequested: boolean }[]>(
    `UPDATE "Run"
        SET "heartbeatAt" = ${DB_NOW}, "leaseExpiresAt" = ${leaseEndSql("$3")}
      WHERE id = $1 AND "workerId" = $2 AND status = 'running'
      RETURNING "cancelRequested"`,
    runId,
    workerId,
    leaseMs,
  );
  return rows.length ? { held: true, cancelRequested: rows[0].cancelRequested } : { held: false, cancelRequested: false };
}

export type FinalStatus = "succeeded" | "failed" | "cancelled";

/** Finish a run this worker holds. Returns false when the lease was lost (the other worker owns the outcome). */
export async function finishRun(db: PrismaClient, runId: string, workerId: string, status: FinalStatus, error?: string): Promise<boolean> {
  const write = (text: string | undefined) =>
    db.run.updateMany({
      where: { id: runId, workerId },
      data: {
        status,
        phase: null,
        finishedAt: new Date(),
        leaseExpiresAt: null,
        workerId: null,
        ...(text !== undefined ? { error: text } : {}),
      },
    });
  try {
    return (await write(error === undefined ? undefined : storableText(error))).count > 0;
  } catch (err) {
    // Never leave a finished run "running" because its error text could not be written: it would be re-claimed
    // every lease period. Store that the text was lost instead.
    if (error === undefined) throw err;
    return (await write(`The run ended with an error whose text could not be stored (${firstLine(err)}).`)).count > 0;
  }
}

/** Put a run back in the queue (graceful shutdown) so another worker resumes it from its last checkpoint. */
export async function releaseRun(db: PrismaClient, runId: string, workerId: string): Promise<boolean> {
  const res = await db.run.updateMany({
    where: { id: runId, workerId, status: "running" },
    data: { status: "queued", phase: null, workerId: null, leaseExpiresAt: null },
  });
  return res.count > 0;
}

export async function setRunPhase(db: PrismaClient, runId: string, workerId: string, phase: string | null): Promise<void> {
  await db.run.updateMany({ where: { id: runId, workerId }, data: { phase } });
}

export async function setRunBackend(db: PrismaClient, runId: string, workerId: string, backend: string): Promise<void> {
  await db.run.updateMany({ where: { id: runId, workerId }, data: { backend: storableText(backend) } });
}
