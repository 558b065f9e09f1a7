/**
 * A Slurm run's job as the API and the run page show it: the current (or last) job's id, Slurm's state and reason,
 * its nodes, how many times the run was requeued, and one line in words. null for runs a worker trains.
 */
import type { PrismaClient } from "../../db/client";
import { describeSlurmJob, type SlurmJobView } from "../../lib/slurm-status";

export type { SlurmJobView };

export async function getSlurmJobView(db: PrismaClient, runId: string): Promise<SlurmJobView | null> {
  const jobs = await db.slurmJob.findMany({ where: { runId }, orderBy: { id: "desc" }, take: 1 });
  if (jobs.length === 0) return null;
  const submitted = await db.slurmJob.count({ where: { runId, state: { not: "REFUSED" } } });
  const j = jobs[0];
  return {
    jobId: j.jobId,
    state: j.state,
    reason: j.reason,
    nodes: j.nodes,
    queuePosition: j.queuePosition,
    requeues: Math.max(0, submitted - 1),
    active: j.active,
    description: describeSlurmJob(j),
  };
}

/** The latest job of each listed run that has one (the runs list's Slurm column). */
export async function getSlurmJobLines(db: PrismaClient, runIds: string[]): Promise<Record<string, string>> {
  if (runIds.length === 0) return {};
  const rows = await db.slurmJob.findMany({ where: { runId: { in: runIds } }, orderBy: { id: "asc" } });
  const latest = new Map(rows.map((r) => [r.runId, r]));
  return Object.fromEntries([...latest].map(([id, j]) => [id, describeSlurmJob(j)]));
}
