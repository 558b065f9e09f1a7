/**
 * A trainer worker: claims runs from the Postgres queue one at a time, keeps their lease alive with heartbeats,
 * runs them, and settles each run's final status.
 *
 *   completed                → succeeded
 *   a limit of its config    → cancelled, with the reason (an evaluation's cost ceiling)
 *   cancel requested         → the loop checkpoints at the next step boundary → cancelled
 *   stop() (SIGTERM)         → the loop checkpoints at the next step boundary → queued again (another worker resumes)
 *   lease lost               → stop at once and write nothing more: the run belongs to whoever reclaimed it
 *   throws                   → failed, with the error's first line on the run and as an error event
 *
 * A worker that dies (SIGKILL, OOM, host lost) simply stops heartbeating; once its lease expires any worker
 * reclaims the run and resumes it from its last complete checkpoint (claimNextRun in lease.ts).
 */
import { createQueueErrorLog } from "./queue-error-log";
import type { PrismaClient } from "../../generated/prisma/client";
import { ZodError } from "zod";
import { describeZodIssues } from "../../lib/error-text";
import { parseRunConfig, type RunConfig } from "../../lib/run-config";
import { createPrismaSink } from "../loop/prisma-sink";
import { firstLine } from "../../lib/error-text";
import type { RunSink, StopControl, StopReason, TrainOutcome } from "../loop/types";
import { LeaseLostError } from "../record/record-step";
import { recordEvent } from "../record/run-events";
import { claimNextRun, finishRun, releaseRun, type ClaimedRun, type HeartbeatResult } from "./lease";
import { keepLeaseInLoop, keepLeaseInThread } from "./lease-keeper";
import { createWorkerId } from "./worker-id";
import { WakeableSleep } from "./wakeable-sleep";

/** The reason a run's abort signal carries. */
export class RunStoppedError extends Error {
  constructor(readonly reason: StopReason) {
    super(
      reason === "cancel"
        ? "the run was cancelled"
        : reason === "shutdown"
          ? "the worker is shutting down"
          : "the worker lost the run's lease",
    );
    this.name = "RunStoppedError";
  }
}

export interface RunContext {
  db: PrismaClient;
  workerId: string;
  run: ClaimedRun;
  config: RunConfig;
  sink: RunSink;
  control: StopControl;
}

/** Trains one claimed run (trainer/main.ts wires the real policy, environments and updater into trainRun). */
export type RunExecutor = (ctx: RunContext) => Promise<TrainOutcome>;

export interface WorkerOptions {
  db: PrismaClient;
  executeRun: RunExecutor;
  workerId?: string;
  /** How long a claim stays valid without a heartbeat (default 30 s). */
  leaseMs?: number;
  /**
   * When set, a thread with its own connection to this database keeps the lease alive, so a TF.js kernel holding
   * the main thread cannot let it lapse (lease-keeper.ts). Without it the heartbeat runs in the event loop.
   */
  databaseUrl?: string;
  /** Heartbeat period (default leaseMs / 6, so five heartbeats can fail before the lease lapses). */
  heartbeatMs?: number;
  /** Idle poll period when the queue is empty (default 2 s). */
  pollMs?: number;
  /**
   * How the worker takes a run (default: the oldest queued worker run, claimNextRun). A Slurm job's trainer claims
   * exactly its own run (claimRunById), so it trains that run by the same path as any worker.
   */
  claim?: (db: PrismaClient, workerId: string, leaseMs: number) => Promise<ClaimedRun | null>;
  /** A run whose worker died this many times in a row (graceful stops do not count) is failed instead (default 10). */
  maxCrashes?: number;
  log?: (message: string) => void;
}

export class TrainerWorker {
  readonly workerId: string;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private readonly pollMs: number;
  private readonly maxCrashes: number;
  private readonly log: (message: string) => void;
  private stopping = false;
  private cancelling = false;
  private readonly pause = new WakeableSleep();
  /** Aborts the run in hand (graceful stop). */
  private abortCurrent: ((reason: StopReason) => void) | null = null;

  constructor(private readonly opts: WorkerOptions) {
    this.workerId = opts.workerId ?? createWorkerId();
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.heartbeatMs = opts.heartbeatMs ?? Math.max(100, Math.floor(this.leaseMs / 6));
    this.pollMs = opts.pollMs ?? 2_000;
    this.maxCrashes = opts.maxCrashes ?? 10;
    this.log = opts.log ?? ((m) => console.log(`[worker ${this.workerId}] ${m}`));
  }

  /**
   * Graceful stop: the current run stops at once (checkpointed if its weights allow) and goes back to the queue — or,
   * with "cancel" (a Slurm job whose run's cancel was requested gets SIGTERM from scancel), ends cancelled.
   */
  stop(reason: "shutdown" | "cancel" = "shutdown"): void {
    this.stopping = true;
    if (reason === "cancel") this.cancelling = true;
    this.pause.wake();
    this.abortCurrent?.(reason);
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** Claim and run queued runs until stop(). */
  async start(): Promise<void> {
    const errors = createQueueErrorLog(this.log, { baseDelayMs: this.pollMs });
    while (!this.stopping) {
      let worked = false;
      let wait = this.pollMs;
      try {
        worked = await this.runOnce();
        errors.succeeded();
      } catch (err) {
        wait = errors.failed(err);
      }
      if (!worked && !this.stopping) await this.pause.sleep(wait);
    }
  }

  /** Claim one run and see it through. Returns false when the queue was empty. */
  async runOnce(): Promise<boolean> {
    if (this.stopping) return false;
    const run = await (this.opts.claim ?? claimNextRun)(this.opts.db, this.workerId, this.leaseMs);
    if (!run) return false;
    await this.handle(run);
    return true;
  }

  private async handle(run: ClaimedRun): Promise<void> {
    const { db } = this.opts;
    const event = (level: "info" | "warn" | "error", message: string, step?: number) =>
      recordEvent(db, run.id, level, message, { step, data: { workerId: this.workerId } }).catch(() => {});

    if (run.cancelRequested) {
      if (await finishRun(db, run.id, this.workerId, "cancelled")) await event("info", "Cancelled before training resumed.", run.step);
      return;
    }
    if (run.crashes > this.maxCrashes) {
      const message = `A worker died or lost its lease ${run.crashes} times in a row while training this run; giving up. Check the worker logs, then resume the run.`;
      if (await finishRun(db, run.id, this.workerId, "failed", message)) await event("error", message, run.step);
      return;
    }
    let config: RunConfig;
    try {
      config = parseRunConfig(run.config);
    } catch (err) {
      const message = `The stored run config is invalid: ${err instanceof ZodError ? describeZodIssues(err, "config") : firstLine(err)}`;
      if (await finishRun(db, run.id, this.workerId, "failed", message)) await event("error", message);
      return;
    }
    this.log(`claimed run ${run.id} (claim #${run.claims}, ${run.step}/${run.totalSteps} steps done)`);
    await event(
      "info",
      run.claims === 1
        ? `Started by worker ${this.workerId}.`
        : run.crashes > 0
          ? `Reclaimed by worker ${this.workerId} after its previous worker stopped responding (${run.crashes} in a row); resuming.`
          : `Resumed by worker ${this.workerId}.`,
      run.step,
    );

    const abort = new AbortController();
    let leaseLost = false;
    let cancelRequested = false;
    // The abort reason is an Error naming why, so whatever it interrupts (an LLM call, an episode, the update)
    // fails with a readable message; the loop recognises the stop through control.reason().
    const stopNow = (why: StopReason) => {
      if (!abort.signal.aborted) abort.abort(new RunStoppedError(why));
    };
    this.abortCurrent = stopNow;
    if (this.stopping) stopNow("shutdown");
    const control: StopControl = {
      signal: abort.signal,
      reason: (): StopReason | null =>
        leaseLost ? "lease_lost" : cancelRequested || this.cancelling ? "cancel" : this.stopping ? "shutdown" : null,
    };
    const target = { runId: run.id, workerId: this.workerId, leaseMs: this.leaseMs, heartbeatMs: this.heartbeatMs };
    const events = {
      onBeat: (hb: HeartbeatResult) => {
        if (!hb.held && !leaseLost) {
          leaseLost = true;
          stopNow("lease_lost");
          this.log(`lost the lease on run ${run.id}; stopping without writing`);
        }
        if (hb.cancelRequested && !cancelRequested) {
          cancelRequested = true;
          stopNow("cancel");
        }
      },
      onError: (message: string) => this.log(message),
    };
    const keeper = this.opts.databaseUrl
      ? keepLeaseInThread(db, { ...target, databaseUrl: this.opts.databaseUrl }, events)
      : keepLeaseInLoop(db, target, events);

    try {
      await keeper.ready;
      const outcome = await this.opts.executeRun({
        db,
        workerId: this.workerId,
        run,
        config,
        sink: createPrismaSink(db, run.id, this.workerId),
        control,
      });
      await keeper.stop();
      this.abortCurrent = null;
      if (outcome.kind === "completed") {
        if (await finishRun(db, run.id, this.workerId, "succeeded"))
          await event("info", `Finished all ${outcome.steps} steps.`, outcome.steps);
      } else if (outcome.kind === "limit") {
        // A limit of the run's own config (an evaluation's cost ceiling): stopped cleanly, the reason on the run.
        if (await finishRun(db, run.id, this.workerId, "cancelled", outcome.message)) await event("warn", outcome.message, outcome.steps);
      } else if (outcome.reason === "cancel") {
        if (await finishRun(db, run.id, this.workerId, "cancelled"))
          await event("info", `Cancelled after ${outcome.steps} steps.`, outcome.steps);
      } else if (outcome.reason === "shutdown") {
        if (await releaseRun(db, run.id, this.workerId))
          await event("info", `Worker shutting down: back in the queue after ${outcome.steps} steps.`, outcome.steps);
      }
      this.log(
        `run ${run.id}: ${outcome.kind === "completed" ? "succeeded" : outcome.kind === "limit" ? outcome.message : outcome.reason} at step ${outcome.steps}`,
      );
    } catch (err) {
      await keeper.stop();
      this.abortCurrent = null;
      if (leaseLost || err instanceof LeaseLostError) {
        this.log(`run ${run.id}: lease lost (${firstLine(err)})`);
        return;
      }
      const message = firstLine(err);
      console.error(err);
      if (await finishRun(db, run.id, this.workerId, "failed", message)) await event("error", `Run failed: ${message}`);
    }
  }
}
