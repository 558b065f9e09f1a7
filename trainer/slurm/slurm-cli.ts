/**
 * The Slurm commands the launcher runs (sbatch, squeue, scontrol, scancel), as async child processes. SLURM_CONF
 * and the rest of the environment are the launcher's: sbatch passes that environment to the job (--export=ALL,
 * Slurm's default), which is how DATABASE_URL reaches the compute node without being written into the script.
 */
import { execFile } from "node:child_process";

export interface SlurmJobStatus {
  jobId: string;
  name: string;
  state: string;
  reason: string | null;
  nodes: string | null;
  /** PENDING only: 1 + the pending jobs of its partition Slurm would start first (higher priority, then older). */
  position?: number | null;
}

export class SlurmCommandError extends Error {
  constructor(
    readonly command: string,
    readonly stderr: string,
  ) {
    super(`${command}: ${stderr.trim().split("\n").join(" ") || "failed"}`);
    this.name = "SlurmCommandError";
  }
}

export interface SlurmCli {
  /** sbatch --parsable with the script on stdin; the job id. Throws SlurmCommandError with sbatch's words. */
  submit(script: string): Promise<string>;
  /** Every job the controller still knows (pending, running and recently ended), by job id. */
  queue(): Promise<Map<string, SlurmJobStatus>>;
  /** One job by id from scontrol (a job squeue no longer lists), else sacct where accounting exists; null when Slurm does not know it. */
  show(jobId: string): Promise<SlurmJobStatus | null>;
  /** scancel: SIGTERM to every process of the job, SIGKILL after the cluster's KillWait. */
  cancel(jobId: string): Promise<void>;
}

function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { env, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) || (err && code === 1 && !stderr ? err.message : "") });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

interface SqueueJob {
  job_id: number;
  name: string;
  job_state: string;
  state_reason?: string;
  nodes?: string;
  partition?: string;
  priority?: number;
  submit_time?: number;
}

/** Each pending job's place in its partition's queue, in Slurm's priority order (ties: submitted first). */
export function queuePositions(jobs: SqueueJob[]): Map<number, number> {
  const pending = jobs.filter((j) => j.job_state === "PENDING");
  const byPartition = new Map<string, SqueueJob[]>();
  for (const j of pending) byPartition.set(j.partition ?? "", [...(byPartition.get(j.partition ?? "") ?? []), j]);
  const out = new Map<number, number>();
  for (const list of byPartition.values()) {
    list.sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0) || (a.submit_time ?? 0) - (b.submit_time ?? 0) || a.job_id - b.job_id);
    list.forEach((j, i) => out.set(j.job_id, i + 1));
  }
  return out;
}

/** The fields of `scontrol show job -o` (one line of key=value). */
function parseScontrolLine(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of line.matchAll(/(\S+?)=(\S*)/g)) out[m[1]] ??= m[2];
  return out;
}

export function createSlurmCli(env: NodeJS.ProcessEnv = process.env): SlurmCli {
  /** A job the controller forgot (past MinJobAge) from accounting, where the cluster has it; null without it. */
  const fromAccounting = async (jobId: string): Promise<SlurmJobStatus | null> => {
    const r = await run("sacct", ["-n", "-X", "-P", "-j", jobId, "-o", "JobName,State,Reason,NodeList"], env);
    const line = r.code === 0 ? r.stdout.trim().split("\n")[0] : "";
    if (!line) return null; // "Slurm accounting storage is disabled", or no record
    const [name, state, reason, nodes] = line.split("|");
    // sacct writes "CANCELLED by 0"; the state is the first word.
    return { jobId, name, state: state.split(" ")[0], reason: reason || null, nodes: nodes && nodes !== "None assigned" ? nodes : null };
  };
  return {
    async submit(script) {
      const r = await run("sbatch", ["--parsable"], env, script);
      if (r.code !== 0) throw new SlurmCommandError("sbatch", r.stderr);
      const id = r.stdout.trim().split(";")[0];
      if (!/^\d+$/.test(id)) throw new SlurmCommandError("sbatch", `unexpected answer "${r.stdout.trim()}"`);
      return id;
    },
    async queue() {
      const r = await run("squeue", ["--json", "--states=all"], env);
      if (r.code !== 0) throw new SlurmCommandError("squeue", r.stderr);
      const jobs = (JSON.parse(r.stdout) as { jobs: SqueueJob[] }).jobs;
      const positions = queuePositions(jobs);
      return new Map(
        jobs.map((j) => [
          String(j.job_id),
          {
            jobId: String(j.job_id),
            name: j.name,
            state: j.job_state,
            reason: j.state_reason || null,
            nodes: j.nodes || null,
            position: positions.get(j.job_id) ?? null,
          },
        ]),
      );
    },
    async show(jobId) {
      const r = await run("scontrol", ["show", "job", "-o", jobId], env);
      if (r.code !== 0) {
        if (/Invalid job id/i.test(r.stderr)) return fromAccounting(jobId);
        throw new SlurmCommandError("scontrol", r.stderr);
      }
      const f = parseScontrolLine(r.stdout);
      const state = (f.JobState ?? "UNKNOWN").split(/[+ ]/)[0];
      return {
        jobId,
        name: f.JobName ?? "",
        state,
        reason: f.Reason ?? null,
        nodes: f.NodeList && f.NodeList !== "(null)" ? f.NodeList : null,
      };
    },
    async cancel(jobId) {
      const r = await run("scancel", [jobId], env);
      if (r.code !== 0) throw new SlurmCommandError("scancel", r.stderr);
    },
  };
}
