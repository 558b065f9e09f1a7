/**
 * The batch script a Slurm launcher submits for a run: `#SBATCH` lines from the run's execution.slurm, the setup
 * lines, then the trainer for exactly that run (trainer/slurm/job-main.ts). A pure function, so the launch form's
 * pre-flight shows the very script the launcher submits.
 *
 * No secret is ever in the script (it is shown in the browser and kept in Slurm's spool): the database URL reaches
 * the job through sbatch's default `--export=ALL` of the launcher's environment.
 */
import type { ExecutionConfig } from "./execution-config";

/** What the launcher's host contributes (its ROLLOUT_LAB_SLURM settings): paths as the compute node sees them. */
export interface JobScriptSite {
  /** The Rollout Lab checkout the job runs from (a shared filesystem path). */
  workDir: string;
  /** The Node.js binary on the compute node. */
  nodeBin: string;
  /** ROLLOUT_LAB_DATA_DIR for the trainer (checkpoints, datasets); shared with the launcher's host. */
  dataDir: string;
  /** Folder of the jobs' stdout/stderr files: <logDir>/<runId>/<job id>.out|.err (the launcher reads them). */
  logDir: string;
}

export interface JobScriptInput {
  runId: string;
  /** The job's name; the launcher finds a job it submitted but did not record by this name. */
  jobName: string;
  execution: ExecutionConfig;
  site: JobScriptSite;
}

/** Single-quoted for bash: the value can hold anything (spaces, $, quotes) and stays one word. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Where a job's output goes; `%j` is Slurm's placeholder for the job id. */
export function jobOutputPaths(logDir: string, runId: string, jobId = "%j"): { stdout: string; stderr: string } {
  const dir = `${logDir.replace(/\/+$/, "")}/${runId}`;
  return { stdout: `${dir}/${jobId}.out`, stderr: `${dir}/${jobId}.err` };
}

/** The `#SBATCH` options for a run's job, in the order they are written. */
export function sbatchOptions(input: JobScriptInput): string[] {
  const s = input.execution.slurm;
  const out = jobOutputPaths(input.site.logDir, input.runId);
  const opts = [
    `--job-name=${input.jobName}`,
    `--output=${out.stdout}`,
    `--error=${out.stderr}`,
    ...(s.partition ? [`--partition=${s.partition}`] : []),
    `--nodes=${s.nodes}`,
    // One trainer process: it is not a multi-task MPI program, so one task per node and its cores as cpus-per-task.
    `--ntasks-per-node=1`,
    `--cpus-per-task=${s.cpusPerTask}`,
    ...(s.gpusPerNode > 0 ? [`--gpus-per-node=${s.gpusPerNode}`] : []),
    ...(s.mem ? [`--mem=${s.mem}`] : []),
    `--time=${s.time}`,
    ...(s.account ? [`--account=${s.account}`] : []),
    ...(s.qos ? [`--qos=${s.qos}`] : []),
    ...(s.constraint ? [`--constraint=${s.constraint}`] : []),
    // Rollout Lab requeues itself (a new job that resumes from the checkpoint, counted against maxRequeues), so
    // Slurm's own requeue-on-node-failure would only hide the failure from the launcher.
    `--no-requeue`,
    ...s.extraSbatch,
  ];
  return opts;
}

/** The whole job script. */
export function renderSlurmJobScript(input: JobScriptInput): string {
  const { site } = input;
  const lines = [
    "#!/bin/bash",
    `# Rollout Lab run ${input.runId}: the built-in trainer for this run only (trainer/slurm/job-main.ts).`,
    ...sbatchOptions(input).map((o) => `#SBATCH ${o}`),
    "",
    "set -eo pipefail",
    `cd ${shellQuote(site.workDir)}`,
    `export ROLLOUT_LAB_DATA_DIR=${shellQuote(site.dataDir)}`,
    ...(input.execution.setup.length > 0 ? ["", "# setup (execution.setup)", ...input.execution.setup] : []),
    "",
    // exec: the trainer is the batch step's process, so Slurm's SIGTERM (scancel, time limit) reaches it directly
    // and it checkpoints before the SIGKILL that follows after KillWait.
    `exec ${shellQuote(site.nodeBin)} --import tsx trainer/slurm/job-main.ts ${shellQuote(input.runId)}`,
    "",
  ];
  return lines.join("\n");
}
