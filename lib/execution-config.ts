/**
 * Where a run trains: `execution` in the RunConfig. "worker" (the default) is today's behaviour — any trainer worker
 * claims the run from the queue. "slurm" hands the run to a Slurm launcher (trainer/slurm/launcher.ts), which
 * submits a batch job that runs the same trainer for exactly that run on a compute node.
 *
 * Every value here ends up in a `#SBATCH` line or a shell line of the rendered job script (lib/slurm-script.ts), so
 * the checks below are what keep a run config from writing arbitrary lines into the script: no newlines anywhere,
 * Slurm's own syntax for names, memory and time, and extra sbatch options limited to `--name[=value]`, never one the
 * launcher sets itself.
 */
import { z } from "zod";
import { engineSchema } from "./engine-config";

export const LAUNCHERS = ["worker", "slurm"] as const;
export type LauncherName = (typeof LAUNCHERS)[number];

/** Partition, account, QOS names: what Slurm accepts in slurm.conf (letters, digits, `_ - .`). */
const slurmName = (what: string) =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_.-]+$/, `${what} must be a Slurm name: letters, digits, "_", "-" or "." (e.g. "gpu")`);

/** Slurm's --mem: a number with an optional unit K, M, G or T (megabytes without one). */
const MEM_PATTERN = /^[1-9][0-9]*[KMGT]?$/;
/** Slurm's --time forms: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS. */
const TIME_PATTERN = /^(?:\d+|\d+:\d{2}|\d+:\d{2}:\d{2}|\d+-\d+|\d+-\d+:\d{2}|\d+-\d+:\d{2}:\d{2})$/;

/** sbatch options the launcher sets or needs for supervision, and a few that would escape it; extraSbatch refuses them. */
export const RESERVED_SBATCH_OPTIONS = [
  "job-name",
  "output",
  "error",
  "partition",
  "nodes",
  "ntasks-per-node",
  "ntasks",
  "cpus-per-task",
  "gpus-per-node",
  "mem",
  "time",
  "account",
  "qos",
  "constraint",
  "requeue",
  "no-requeue",
  "parsable",
  "wrap",
  "chdir",
  "export",
  "array",
  "hold",
  "wait",
  // Options that would run the job as someone else, read files of the launcher's host, send it to another cluster
  // (whose job ids the launcher would not find), make sbatch answer differently, or change the signals the trainer
  // checkpoints on.
  "uid",
  "gid",
  "input",
  "export-file",
  "get-user-env",
  "clusters",
  "test-only",
  "signal",
  "open-mode",
] as const;

/** One extra sbatch option: `--name` or `--name=value`, one line, never an option the launcher sets. */
const extraSbatchLine = z
  .string()
  .max(256)
  .superRefine((line, ctx) => {
    const m = /^--([a-z][a-z0-9-]*)(?:=([^\r\n\0]*))?$/.exec(line);
    if (!m) {
      ctx.addIssue({
        code: "custom",
        message: `"${line.slice(0, 60)}" is not an sbatch option: write one long option per entry, e.g. "--exclusive" or "--gres=gpu:a100:8"`,
      });
      return;
    }
    if ((RESERVED_SBATCH_OPTIONS as readonly string[]).includes(m[1])) {
      ctx.addIssue({
        code: "custom",
        message: `--${m[1]} is set by Rollout Lab or not allowed (docs/slurm.md); use the matching execution.slurm field instead, or remove it`,
      });
    }
  });

/** A shell line run before the trainer (`module load cuda/12.4`, `source ~/venv/bin/activate`): one line each. */
const setupLine = z
  .string()
  .min(1)
  .max(1000)
  .refine((l) => !/[\r\n\0]/.test(l), "a setup line must be one line: split it into several entries");

export const slurmOptionsSchema = z
  .object({
    partition: slurmName("partition").optional().describe("Partition (queue) to submit to; omit for the cluster's default partition."),
    nodes: z.number().int().min(1).max(1024).default(1).describe("Nodes to allocate (the trainer runs on the first)."),
    gpusPerNode: z.number().int().min(0).max(64).default(0).describe("GPUs per node (sbatch --gpus-per-node); 0 asks for none."),
    cpusPerTask: z.number().int().min(1).max(1024).default(1).describe("CPU cores for the trainer (sbatch --cpus-per-task)."),
    mem: z
      .string()
      .regex(MEM_PATTERN, 'mem must be a Slurm memory size such as "16G", "512M" or "64000" (megabytes)')
      .optional()
      .describe('Memory per node (sbatch --mem), e.g. "64G"; omit for the partition\'s default.'),
    time: z
      .string()
      .regex(TIME_PATTERN, 'time must be a Slurm time limit such as "12:00:00", "2-00:00:00" or "90" (minutes)')
      .default("1:00:00")
      .describe("Wall-time limit (sbatch --time); a job that reaches it is requeued and resumes from its checkpoint (execution.requeue)."),
    account: slurmName("account").optional().describe("Account to charge (sbatch --account)."),
    qos: slurmName("qos").optional().describe("Quality of service (sbatch --qos)."),
    constraint: z
      .string()
      .min(1)
      .max(256)
      .regex(/^[A-Za-z0-9_.:&|,*\[\]()-]+$/, 'constraint must be a Slurm feature expression such as "a100" or "a100|h100"')
      .optional()
      .describe("Node features required (sbatch --constraint)."),
    extraSbatch: z
      .array(extraSbatchLine)
      .max(32)
      .default([])
      .describe(
        'Further sbatch options, one per entry, e.g. ["--exclusive", "--gres=gpu:a100:8"]; options the fields above set are refused.',
      ),
  })
  .strict();

export const executionSchema = z
  .object({
    launcher: z
      .enum(LAUNCHERS)
      .default("worker")
      .describe('"worker": any trainer worker claims the run (npm run worker). "slurm": a Slurm launcher submits it as a batch job.'),
    engine: engineSchema,
    slurm: slurmOptionsSchema.prefault({}).describe("The job's resources (launcher slurm)."),
    setup: z
      .array(setupLine)
      .max(64)
      .default([])
      .describe("Shell lines the job runs before the trainer, e.g. module load or activating an environment (launcher slurm)."),
    requeue: z
      .boolean()
      .default(true)
      .describe("A job that is killed, times out, is preempted or loses its node is submitted again and resumes from the last checkpoint."),
    maxRequeues: z
      .number()
      .int()
      .min(0)
      .max(100)
      .default(3)
      .describe("How many times a run's job is submitted again before the run fails."),
  })
  .strict()
  .superRefine((e, ctx) => {
    if (e.launcher === "worker" && e.setup.length > 0) {
      ctx.addIssue({
        code: "custom",
        path: ["setup"],
        message: 'setup lines run only in a Slurm job script; set execution.launcher to "slurm" or remove them',
      });
    }
  });

export type ExecutionConfig = z.output<typeof executionSchema>;
export type SlurmOptions = z.output<typeof slurmOptionsSchema>;
