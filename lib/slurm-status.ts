/**
 * Slurm's job states as a run's page shows them, and what the launcher does when a job ends. Pure, so the API, the
 * run page and the launcher agree.
 */

/** States in which the job no longer runs (Slurm's "job state codes"; a job requeued by Slurm itself never ends). */
const ENDED_STATES = new Set([
  "COMPLETED",
  "FAILED",
  "CANCELLED",
  "TIMEOUT",
  "NODE_FAIL",
  "PREEMPTED",
  "OUT_OF_MEMORY",
  "BOOT_FAIL",
  "DEADLINE",
  "SPECIAL_EXIT",
  "REVOKED",
  // Not Slurm's: the job is no longer known to the controller (past MinJobAge, no accounting to ask).
  "LOST",
]);

export function isEndedSlurmState(state: string): boolean {
  return ENDED_STATES.has(state);
}

/** The one line a run's page shows for its job: "Slurm job 12: PENDING (Resources)", "RUNNING on node7". */
export function describeSlurmJob(job: {
  jobId: string | null;
  state: string;
  reason: string | null;
  nodes: string | null;
  queuePosition?: number | null;
}): string {
  if (job.state === "SUBMITTING") return "Slurm: submitting the job…";
  if (job.state === "REFUSED") return `Slurm refused the job: ${job.reason ?? "no reason given"}`;
  const reason = job.reason && job.reason !== "None" ? ` (${job.reason})` : "";
  const where = job.state === "RUNNING" && job.nodes ? ` on ${job.nodes}` : "";
  const place = job.state === "PENDING" && job.queuePosition ? `, #${job.queuePosition} in its partition's queue` : "";
  return `Slurm job ${job.jobId}: ${job.state}${reason}${where}${place}`;
}

/** Why an ended job stopped the run, in words (the run's error when it is not requeued). */
export function explainEndedJob(state: string, reason: string | null): string {
  const why: Record<string, string> = {
    TIMEOUT: "reached its time limit (execution.slurm.time)",
    NODE_FAIL: "lost its node",
    PREEMPTED: "was preempted by a higher-priority job",
    OUT_OF_MEMORY: "ran out of memory (raise execution.slurm.mem)",
    CANCELLED: "was cancelled outside Rollout Lab (scancel)",
    FAILED: "failed: the trainer exited with an error or was killed (its output is in the run's log)",
    BOOT_FAIL: "could not boot its node",
    DEADLINE: "reached its deadline",
    LOST: "is no longer known to Slurm (ended more than MinJobAge ago, and there is no accounting to ask)",
    COMPLETED: "ended before the run finished",
  };
  const detail = reason && reason !== "None" ? ` (Slurm: ${reason})` : "";
  return `${why[state] ?? `ended ${state}`}${detail}`;
}

/** Whether an ended job's run is submitted again: configured, and requeues left. */
export function shouldRequeue(execution: { requeue: boolean; maxRequeues: number }, requeuesSoFar: number): boolean {
  return execution.requeue && requeuesSoFar < execution.maxRequeues;
}

/** A Slurm run's current (or last) job, as the API returns it (runs.get, runActions.status: `slurm`). */
export interface SlurmJobView {
  jobId: string | null;
  state: string;
  reason: string | null;
  nodes: string | null;
  /** While PENDING: 1 + the pending jobs of its partition Slurm would start first. */
  queuePosition: number | null;
  /** Jobs submitted for the run after its first (each resumed from the last checkpoint). */
  requeues: number;
  active: boolean;
  description: string;
}
