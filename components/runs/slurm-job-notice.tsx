/**
 * A Slurm run's job on its page: Slurm's state and reason ("Slurm job 12: PENDING (Resources)"), its nodes, and how
 * many times the run was requeued. The run page refreshes it while the run is live; the job's output is in the
 * event log below (lines starting "[slurm job 12]").
 */
import type { SlurmJobView } from "@/lib/slurm-status";

export function SlurmJobNotice({ job }: { job: SlurmJobView }) {
  const requeued = job.requeues > 0 ? ` · requeued ${job.requeues} time${job.requeues === 1 ? "" : "s"}` : "";
  return (
    <p role="status" data-testid="slurm-job" className="rounded border border-slate-300 bg-slate-50 p-3 text-sm text-slate-800">
      {job.description}
      {requeued}
      {job.active ? "" : job.state === "REFUSED" ? "" : " (ended)"}
    </p>
  );
}
