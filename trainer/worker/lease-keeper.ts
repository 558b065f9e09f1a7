/**
 * Keeps a claimed run's lease alive while the run trains. Two ways to do it:
 *
 *   in the event loop   setInterval + heartbeat(): simple, but a TF.js kernel that holds the main thread for longer
 *                       than the lease (the CPU backend does for seconds at a time on big models) lets the lease
 *                       lapse, and another worker then trains the same run twice.
 *   in a thread         a worker_thread with its own database connection renews the lease whatever the main thread
 *                       is doing. The main thread still ticks it; if the ticks stop for `maxStallMs` (a truly hung
 *                       trainer) the thread stops renewing, so a hung worker's run is reclaimed like a dead one's.
 *
 * Both report the same two things back: the lease was lost, or a cancel was requested.
 */
import { Worker } from "node:worker_threads";
import type { PrismaClient } from "../../generated/prisma/client";
import { firstLine } from "../../lib/error-text";
import { heartbeat, type HeartbeatResult } from "./lease";

export interface LeaseKeeperEvents {
  onBeat(result: HeartbeatResult): void;
  onError(message: string): void;
}

export interface LeaseKeeper {
  /** Resolves once the keeper renews the lease on its own: wait for it before the main thread gets busy. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export interface LeaseTarget {
  runId: string;
  workerId: string;
  leaseMs: number;
  heartbeatMs: number;
}

export function keepLeaseInLoop(db: PrismaClient, target: LeaseTarget, events: LeaseKeeperEvents): LeaseKeeper {
  const beat = async () => {
    try {
      events.onBeat(await heartbeat(db, target.runId, target.workerId, target.leaseMs));
    } catch (err) {
      events.onError(firstLine(err));
    }
  };
  const timer = setInterval(() => void beat(), target.heartbeatMs);
  return { ready: Promise.resolve(), stop: async () => clearInterval(timer) };
}

/** Messages between the main thread and lease-keeper-thread.ts. */
export type ToKeeper = { type: "tick" } | { type: "stop" };
export type FromKeeper =
  { type: "beat"; result: HeartbeatResult } | { type: "error"; message: string } | { type: "stalled"; seconds: number };

export interface ThreadKeeperOptions extends LeaseTarget {
  databaseUrl: string;
  /** Stop renewing when the main thread has not ticked for this long (default 10 min). */
  maxStallMs?: number;
}

export function keepLeaseInThread(db: PrismaClient, opts: ThreadKeeperOptions, events: LeaseKeeperEvents): LeaseKeeper {
  const { databaseUrl, runId, workerId, leaseMs, heartbeatMs } = opts;
  // The thread takes a while to boot (tsx, its own Prisma client: seconds on a loaded machine, longer than a short
  // lease). Until its first heartbeat, the main thread — idle, because the worker waits for `ready` — renews the
  // lease in its event loop, so there is no moment when nobody does.
  const interim = keepLeaseInLoop(db, opts, events);
  let markReady: () => void = () => {};
  const threadBeating = new Promise<void>((resolve) => (markReady = resolve)).then(() => interim.stop());
  // A thread that never comes up must not hold the run forever: after 30 s training starts with the event-loop
  // heartbeat still running (it stops when the thread's first beat arrives).
  let giveUp: ReturnType<typeof setTimeout> | undefined;
  const ready = Promise.race([
    threadBeating,
    new Promise<void>((resolve) => {
      giveUp = setTimeout(() => {
        events.onError("the lease thread has not started after 30 s; renewing the lease from the event loop meanwhile");
        resolve();
      }, 30_000);
    }),
  ]).finally(() => clearTimeout(giveUp));
  // The thread's entry is TypeScript like the rest of the trainer; a worker does not inherit the loader the `tsx`
  // command installs, so the thread registers tsx itself before importing it.
  const entry = new URL("./lease-keeper-thread.ts", import.meta.url).href;
  const boot = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  const thread = new Worker(boot, {
    eval: true,
    workerData: { databaseUrl, runId, workerId, leaseMs, heartbeatMs, maxStallMs: opts.maxStallMs ?? 10 * 60_000 },
  });
  thread.on("message", (msg: FromKeeper) => {
    markReady();
    if (msg.type === "beat") events.onBeat(msg.result);
    else if (msg.type === "error") events.onError(msg.message);
    else events.onError(`the trainer has not responded for ${msg.seconds} s; no longer renewing the lease`);
  });
  thread.on("error", (err) => events.onError(`lease thread failed: ${firstLine(err)}`));
  const exited = new Promise<void>((resolve) => thread.once("exit", () => resolve()));
  // A thread that died before its first beat leaves the event-loop heartbeat running: better than none.
  void exited.then(() => markReady());
  const ticker = setInterval(() => thread.postMessage({ type: "tick" } satisfies ToKeeper), Math.min(heartbeatMs, 1000));
  return {
    ready,
    stop: async () => {
      clearInterval(ticker);
      await interim.stop();
      thread.postMessage({ type: "stop" } satisfies ToKeeper);
      await exited;
    },
  };
}
