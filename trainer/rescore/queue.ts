/**
 * The re-scoring job queue in Postgres, leased like the run queue (db/lease-queue.ts): a lease renewed as the job
 * makes progress, and a job whose worker died (lease expired) is reclaimed — it resumes, because finished
 * trajectories are skipped.
 */
import type { PrismaClient } from "../../generated/prisma/client";
import { claimLeased, leaseEndSql } from "../../db/lease-queue";

/** Claim the oldest queued job (or an abandoned running one). Returns its id, or null when there is none. */
export async function claimNextRescoring(db: PrismaClient, workerId: string, leaseMs: number): Promise<string | null> {
  const row = await claimLeased<{ id: string }>(db, { table: "Rescoring", countsClaims: true, returning: "id" }, workerId, leaseMs);
  return row?.id ?? null;
}

/** Record progress and renew the lease. false = this worker no longer holds the job (stop writing). */
export async function recordProgress(
  db: PrismaClient,
  id: string,
  workerId: string,
  leaseMs: number,
  delta: { done?: number; unscored?: number; total?: number },
): Promise<boolean> {
  const n = await db.$executeRawUnsafe(
    `UPDATE "Rescoring"
        SET done = done + $3::int, unscored = unscored + $4::int, total = COALESCE($5::int, total),
            "leaseExpiresAt" = ${leaseEndSql("$6")}
      WHERE id = $1 AND "workerId" = $2 AND status = 'running'`,
    id,
    workerId,
    delta.done ?? 0,
    delta.unscored ?? 0,
    delta.total ?? null,
    leaseMs,
  );
  return n > 0;
}

export async function finishRescoring(
  db: PrismaClient,
  id: string,
  workerId: string,
  status: "succeeded" | "failed",
  error?: string,
): Promise<boolean> {
  const res = await db.rescoring.updateMany({
    where: { id, workerId },
    data: { status, finishedAt: new Date(), workerId: null, leaseExpiresAt: null, ...(error !== undefined ? { error } : {}) },
  });
  return res.count > 0;
}
