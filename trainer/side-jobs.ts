/**
 * The worker's side jobs (re-scoring stored trajectories, answering launch pre-flight checks) run in a worker thread
 * beside training: TF.js computes synchronously, one micro-batch of a long-context SFT or GRPO step can hold the main
 * thread for a minute, and in that minute the pre-flight loop on the same thread answered nothing (the launch form
 * said no worker answered) and its transactions expired. If the thread cannot start, the loops run on the main
 * thread as before.
 */
import { Worker } from "node:worker_threads";
import { firstLine } from "../lib/error-text";
import { startRescoringLoopFromEnv } from "./rescore/loop";
import { startPreflightLoopFromEnv } from "./preflight/loop";

export function startSideJobs(databaseUrl: string, opts: { answered?: SharedArrayBuffer; log?: (m: string) => void } = {}): Worker {
  const log = opts.log ?? ((m: string) => console.log(`[worker] ${m}`));
  // A thread does not inherit the loader the `tsx` command installs: it registers tsx before importing its entry.
  const entry = new URL("./side-jobs-thread.ts", import.meta.url).href;
  const boot = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  const thread = new Worker(boot, { eval: true, workerData: { databaseUrl, answered: opts.answered } });
  let started = false;
  thread.once("online", () => (started = true));
  thread.on("error", (err) => {
    log(`side-jobs thread failed: ${firstLine(err)}${started ? "" : "; running re-scoring and pre-flight on the main thread"}`);
    if (!started) {
      startRescoringLoopFromEnv(databaseUrl);
      startPreflightLoopFromEnv(databaseUrl);
    }
  });
  // The worker process exits when training stops; the side loops never hold it open.
  thread.unref();
  return thread;
}
