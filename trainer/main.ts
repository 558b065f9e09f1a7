/**
 * The trainer worker process (`npm run worker`; `npm start` starts one too): claims runs from the database queue
 * and trains them with the real policy, environments and GRPO update. See trainer/worker/worker.ts for the run
 * lifecycle and trainer/loop/train-run.ts for the loop.
 *
 * Environment: DATABASE_URL (default: the embedded database `npm start` runs from ROLLOUT_LAB_DATA_DIR on EMBEDDED_DB_PORT),
 * ROLLOUT_LAB_DATA_DIR (checkpoints go to <dir>/checkpoints/<runId>, default .data), WORKER_LEASE_MS (30000),
 * WORKER_HEARTBEAT_MS (lease / 6), WORKER_POLL_MS (2000), ROLLOUT_LAB_BACKEND (force tensorflow / wasm / cpu),
 * ROLLOUT_LAB_SLURM (be a Slurm launcher instead: trainer/slurm/launcher.ts).
 */
import { createRealExecutor } from "./loop/real/execute-run";
import { runWorkerProcess } from "./worker/process";
import { startSideJobs } from "./side-jobs";
import { readSlurmSettings, type SlurmLauncherSettings } from "./slurm/settings";
import { runSlurmLauncherProcess } from "./slurm/launcher-process";

function readSlurmSettingsOrExit(): SlurmLauncherSettings | null {
  try {
    return readSlurmSettings();
  } catch (err) {
    console.error(`[worker] ${(err as Error).message}`);
    process.exit(1);
  }
}

// ROLLOUT_LAB_SLURM set: this process is a Slurm launcher — it submits the runs whose execution.launcher is "slurm"
// as batch jobs and supervises them, and trains nothing here (docs/slurm.md).
const slurm = readSlurmSettingsOrExit();
if (slurm) await runSlurmLauncherProcess(slurm);

// Re-scoring jobs (re-judging stored trajectories) and launch pre-flight checks run beside training, in a thread of
// their own (side-jobs.ts), so they neither wait for a long run to finish nor for its current step.
await runWorkerProcess({
  executeRun: createRealExecutor(process.env.ROLLOUT_LAB_DATA_DIR || ".data"),
  alongside: (url) => void startSideJobs(url),
});
