/**
 * The Slurm launcher (`npm run worker` with ROLLOUT_LAB_SLURM set, on a host that can run sbatch): it trains nothing
 * itself. Each poll it
 *
 *   1. supervises every active job (SlurmJob rows): Slurm's state and reason onto the row and the run's events, the
 *      job's stdout/stderr into the run's log, `scancel` when the run's cancel was requested; and when the job has
 *      ended without the run finishing (killed, TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY…) puts the run back in
 *      the queue for a new job that resumes from its last checkpoint (execution.requeue, maxRequeues), or fails it
 *      with the reason;
 *   2. claims queued runs whose execution.launcher is "slurm" and submits each as a batch job (lib/slurm-script.ts).
 *
 * The active SlurmJob row is the launcher's hold on a run, and its job id the lease: a launcher that restarts finds
 * the job and re-attaches, it never submits a second job while one is active. A launcher that died between sbatch and
 * recording the id finds the job by its name (unique per submission). Run one launcher per database.
 *
 * On the compute node the job runs trainer/slurm/job-main.ts: a worker for exactly that run, which claims it by id
 * and trains it as any worker would (checkpoints, resume, graceful stop on SIGTERM).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { PrismaClient } from "../../generated/prisma/client";
import { firstLine } from "../../lib/error-text";
import { parseRunConfig } from "../../lib/run-config";
import { renderSlurmJobScript } from "../../lib/slurm-script";
import { describeSlurmJob, explainEndedJob, isEndedSlurmState, shouldRequeue } from "../../lib/slurm-status";
import { storableText } from "../../lib/storable";
import { recordEvent } from "../record/run-events";
import { copyJobOutput } from "./job-logs";
import { jobScriptSite, type SlurmLauncherSettings } from "./settings";
import { SlurmCommandError, type SlurmCli, type SlurmJobStatus } from "./slurm-cli";
import { WakeableSleep } from "../worker/wakeable-sleep";

/** The worker id a job's trainer claims its run under (job-main.ts), so the launcher knows whose lease it may end. */
export function slurmWorkerId(jobId: string): string {
  return `slurm-job-${jobId}`;
}

/** sbatch's words when the controller could not be reached or was busy (retried), as opposed to refusing the job. */
const TRANSIENT_SLURM_ERROR = /unable to contact slurm controller|socket timed out|connection refused|temporarily unavailable|try again/i;

export interface SlurmLauncherOptions {
  db: PrismaClient;
  settings: SlurmLauncherSettings;
  cli: SlurmCli;
  log?: (message: string) => void;
}

type ActiveJob = Awaited<ReturnType<SlurmLauncher["activeJobs"]>>[number];

export class SlurmLauncher {
  private stopping = false;
  private readonly pause = new WakeableSleep();
  private readonly log: (message: string) => void;

  constructor(private readonly opts: SlurmLauncherOptions) {
    this.log = opts.log ?? ((m) => console.log(`[slurm launcher] ${m}`));
  }

  stop(): void {
    this.stopping = true;
    this.pause.wake();
  }

  async start(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.tick();
      } catch (err) {
        this.log(`poll failed: ${firstLine(err)}`);
      }
      if (!this.stopping) await this.pause.sleep(this.opts.settings.pollMs);
    }
  }

  /** One poll: supervise the active jobs, then submit the queued Slurm runs. */
  async tick(): Promise<void> {
    await this.superviseActive();
    while (!this.stopping && (await this.submitNext())) {
      // one run per claim, until none is left
    }
  }

  activeJobs() {
    return this.opts.db.slurmJob.findMany({ where: { active: true }, orderBy: { id: "asc" } });
  }

  private event(runId: string, level: "info" | "warn" | "error", message: string, jobId?: string | null, step?: number) {
    return recordEvent(this.opts.db, runId, level, message, { step, data: { source: "slurm", ...(jobId ? { jobId } : {}) } }).catch(
      () => {},
    );
  }

  // ── submit ──

  /** Claim the oldest queued Slurm run without an active job and submit it. False when there is none. */
  private async submitNext(): Promise<boolean> {
    const { db } = this.opts;
    const claimed = await db.$transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<{ id: string; config: unknown }[]>(
        `SELECT r.id, r.config FROM "Run" r
          WHERE r.source = 'rollout-lab' AND r.status = 'queued' AND NOT r."cancelRequested"
            AND r.config->'execution'->>'launcher' = 'slurm'
            AND NOT EXISTS (SELECT 1 FROM "SlurmJob" j WHERE j."runId" = r.id AND j.active)
          ORDER BY r."createdAt", r.id
          LIMIT 1
          FOR UPDATE OF r SKIP LOCKED`,
      );
      if (rows.length === 0) return null;
      const run = rows[0];
      const submissions = await tx.slurmJob.count({ where: { runId: run.id } });
      const jobName = `rollout-lab-${run.id}-${submissions + 1}`;
      let script: string;
      try {
        script = this.renderScript(run.id, jobName, run.config);
      } catch (err) {
        return { run, error: firstLine(err) };
      }
      const job = await tx.slurmJob.create({ data: { runId: run.id, jobName, state: "SUBMITTING", script } });
      return { run, job };
    });
    if (!claimed) return false;
    if ("error" in claimed) {
      await this.failRun(claimed.run.id, claimed.error as string);
      return true;
    }
    await this.submit(claimed.job);
    return true;
  }

  private renderScript(runId: string, jobName: string, rawConfig: unknown): string {
    const config = parseRunConfig(rawConfig);
    if (config.execution.setup.length > 0 && this.opts.settings.runSetup !== "allow") {
      throw new Error(
        "This run has execution.setup lines, and this Slurm launcher does not run a run's own shell lines (they would run as the launcher's user). Remove them, or start the launcher with runSetup=allow in ROLLOUT_LAB_SLURM.",
      );
    }
    return renderSlurmJobScript({ runId, jobName, execution: config.execution, site: jobScriptSite(this.opts.settings) });
  }

  /** sbatch for a row in SUBMITTING; Slurm's refusal fails the run with Slurm's words. */
  private async submit(job: { id: number; runId: string; jobName: string; script: string }): Promise<void> {
    const { db, cli } = this.opts;
    mkdirSync(path.join(this.opts.settings.logDir, job.runId), { recursive: true });
    let jobId: string;
    try {
      jobId = await cli.submit(job.script);
    } catch (err) {
      const words = err instanceof SlurmCommandError ? err.stderr.trim().replace(/\s*\n\s*/g, " ") : firstLine(err);
      if (TRANSIENT_SLURM_ERROR.test(words)) {
        // The controller is down or busy, which says nothing about the run: the row stays SUBMITTING and the next
        // poll submits again (after checking by name that this attempt did not get through after all).
        this.log(`run ${job.runId}: sbatch could not reach Slurm, retrying next poll (${words})`);
        return;
      }
      await db.slurmJob.update({
        where: { id: job.id },
        data: { state: "REFUSED", reason: storableText(words), active: false, endedAt: new Date() },
      });
      await this.failRun(job.runId, `Slurm refused the job: ${words}`);
      return;
    }
    await db.slurmJob.update({ where: { id: job.id }, data: { jobId, state: "PENDING" } });
    this.log(`run ${job.runId}: submitted as Slurm job ${jobId}`);
    await this.event(job.runId, "info", `Submitted to Slurm as job ${jobId} (${job.jobName}).`, jobId);
  }

  private async failRun(runId: string, message: string): Promise<void> {
    const res = await this.opts.db.run.updateMany({
      where: { id: runId, status: { in: ["queued", "running"] } },
      data: { status: "failed", error: storableText(message), finishedAt: new Date(), phase: null, workerId: null, leaseExpiresAt: null },
    });
    if (res.count > 0) await this.event(runId, "error", `Run failed: ${message}`);
    this.log(`run ${runId}: failed: ${message}`);
  }

  // ── supervise ──

  private async superviseActive(): Promise<void> {
    const jobs = await this.activeJobs();
    if (jobs.length === 0) return;
    const queue = await this.opts.cli.queue();
    for (const job of jobs) {
      try {
        await this.superviseOne(job, queue);
      } catch (err) {
        this.log(`run ${job.runId}, job ${job.jobId ?? job.jobName}: ${firstLine(err)}`);
      }
    }
  }

  private async superviseOne(job: ActiveJob, queue: Map<string, SlurmJobStatus>): Promise<void> {
    const { db, cli } = this.opts;
    if (job.jobId === null) {
      // A launcher died between sbatch and recording the id: the job's name says whether it was submitted.
      const found = [...queue.values()].find((j) => j.name === job.jobName);
      if (!found) return this.submit(job);
      await db.slurmJob.update({ where: { id: job.id }, data: { jobId: found.jobId, state: found.state } });
      await this.event(job.runId, "info", `Re-attached to Slurm job ${found.jobId} (${job.jobName}).`, found.jobId);
      return;
    }
    const jobId = job.jobId;
    const status = queue.get(jobId) ?? (await cli.show(jobId)) ?? { jobId, name: job.jobName, state: "LOST", reason: null, nodes: null };
    const position = status.state === "PENDING" ? (status.position ?? null) : null;
    const changed =
      status.state !== job.state || status.reason !== job.reason || (status.nodes ?? null) !== job.nodes || position !== job.queuePosition;
    if (changed) {
      await db.slurmJob.update({
        where: { id: job.id },
        data: { state: status.state, reason: status.reason, nodes: status.nodes, queuePosition: position },
      });
      // An event when the state or Slurm's reason changes; a moving queue position only updates the row.
      if (status.state !== job.state || status.reason !== job.reason) {
        await this.event(
          job.runId,
          "info",
          describeSlurmJob({ jobId, state: status.state, reason: status.reason, nodes: status.nodes }),
          jobId,
        );
      }
    }
    const ended = isEndedSlurmState(status.state);
    await copyJobOutput(db, { ...job, jobId }, this.opts.settings.logDir, ended);
    const run = await db.run.findUniqueOrThrow({ where: { id: job.runId }, select: { status: true, cancelRequested: true } });
    if (!ended) {
      // A queued run is cancelled by the API at once (cancelRun), so its job must go too. A run the trainer has just
      // finished (succeeded, failed) is left alone: its job is exiting by itself and ends COMPLETED.
      const settled = run.status === "cancelled";
      if ((run.cancelRequested || settled) && !job.cancelSent) {
        await cli.cancel(jobId);
        await db.slurmJob.update({ where: { id: job.id }, data: { cancelSent: true } });
        await this.event(
          job.runId,
          "info",
          settled
            ? `The run is ${run.status}: scancel ${jobId}.`
            : `Cancel requested: scancel ${jobId} (the trainer saves a checkpoint and stops).`,
          jobId,
        );
      }
      return;
    }
    await this.settleEnded(job, jobId, status);
  }

  /** The job ended: the run finished (nothing to do), was cancelled, or goes back to the queue or fails. */
  private async settleEnded(job: ActiveJob, jobId: string, status: SlurmJobStatus): Promise<void> {
    const { db } = this.opts;
    await db.slurmJob.update({ where: { id: job.id }, data: { active: false, endedAt: new Date() } });
    const run = await db.run.findUniqueOrThrow({
      where: { id: job.runId },
      select: { status: true, cancelRequested: true, config: true, step: true },
    });
    if (run.status !== "queued" && run.status !== "running") {
      await this.event(job.runId, "info", `Slurm job ${jobId} ended (${status.state}); the run is ${run.status}.`, jobId, run.step);
      return;
    }
    // The job's processes are gone (Slurm ended it), so its trainer's lease can be ended now rather than after it
    // lapses; a lease held by any other live trainer is left alone.
    const released = await db.$executeRawUnsafe(
      `UPDATE "Run" SET status = 'queued', "workerId" = NULL, "leaseExpiresAt" = NULL, phase = NULL, "updatedAt" = now() AT TIME ZONE 'UTC'
        WHERE id = $1 AND (status = 'queued' OR ("workerId" IS NULL OR "workerId" = $2 OR "leaseExpiresAt" < now() AT TIME ZONE 'UTC'))`,
      job.runId,
      slurmWorkerId(jobId),
    );
    if (released === 0) {
      this.log(`run ${job.runId}: job ${jobId} ended but another trainer holds the run; leaving it`);
      return;
    }
    if (run.cancelRequested) {
      await db.run.updateMany({
        where: { id: job.runId, status: "queued" },
        data: { status: "cancelled", finishedAt: new Date(), cancelRequested: false },
      });
      await this.event(job.runId, "info", `Cancelled: Slurm job ${jobId} stopped after ${run.step} steps.`, jobId, run.step);
      return;
    }
    const why = explainEndedJob(status.state, status.reason);
    let execution = { requeue: true, maxRequeues: 3 };
    try {
      execution = parseRunConfig(run.config).execution;
    } catch {
      // a config that no longer parses is failed by the next job's trainer with the reason
    }
    const requeuesSoFar = (await db.slurmJob.count({ where: { runId: job.runId, state: { not: "REFUSED" } } })) - 1;
    if (shouldRequeue(execution, requeuesSoFar)) {
      const message = `Slurm job ${jobId} ${why}: requeued (${requeuesSoFar + 1} of ${execution.maxRequeues}); the next job resumes from the checkpoint at step ${run.step}.`;
      this.log(`run ${job.runId}: ${message}`);
      await this.event(job.runId, "warn", message, jobId, run.step);
      return;
    }
    const refusal = execution.requeue
      ? `not requeued: it was requeued ${requeuesSoFar} times (execution.maxRequeues ${execution.maxRequeues})`
      : "not requeued (execution.requeue is false)";
    await this.failRun(job.runId, `Slurm job ${jobId} ${why}; ${refusal}. Resume the run to continue from step ${run.step}.`);
  }
}
