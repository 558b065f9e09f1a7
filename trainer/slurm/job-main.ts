/**
 * What a Slurm job runs on the compute node (the last line of lib/slurm-script.ts): the built-in trainer for exactly
 * one run, `node --import tsx trainer/slurm/job-main.ts <runId>`. It claims that run by id under the worker id
 * slurm-job-<SLURM_JOB_ID> and trains it as any worker does — a resume starts from the run's last checkpoint with
 * the same task order — then exits. SIGTERM (scancel, or the job's time limit) stops it at a step boundary with a
 * checkpoint: a cancel requested from Rollout Lab ends the run cancelled, anything else puts it back in the queue for
 * the launcher to requeue. DATABASE_URL comes from the launcher's environment (sbatch --export=ALL).
 */
import { createRealExecutor } from "../loop/real/execute-run";
import { runWorkerProcess } from "../worker/process";
import { slurmWorkerId } from "./launcher";

const runId = process.argv[2];
if (!runId) {
  console.error("usage: node --import tsx trainer/slurm/job-main.ts <runId> (the Slurm launcher writes this line into the job script)");
  process.exit(2);
}
const jobId = process.env.SLURM_JOB_ID ?? `local-${process.pid}`;
console.log(`[slurm job ${jobId}] training run ${runId} on ${process.env.SLURMD_NODENAME ?? "this host"}`);

await runWorkerProcess({
  executeRun: createRealExecutor(process.env.ROLLOUT_LAB_DATA_DIR || ".data"),
  workerId: slurmWorkerId(jobId),
  onlyRun: { runId },
});
