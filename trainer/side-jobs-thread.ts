/**
 * The thread half of startSideJobs (side-jobs.ts): the re-scoring and pre-flight loops on their own event loop and
 * database connections, so a training step that holds the main thread for a minute does not leave a launch form
 * waiting for a pre-flight answer or expire these loops' transactions.
 */
import { workerData } from "node:worker_threads";
import { startRescoringLoopFromEnv } from "./rescore/loop";
import { startPreflightLoopFromEnv } from "./preflight/loop";

const { databaseUrl, answered } = workerData as { databaseUrl: string; answered?: SharedArrayBuffer };
const counter = answered ? new Int32Array(answered) : null;
startRescoringLoopFromEnv(databaseUrl);
startPreflightLoopFromEnv(databaseUrl, () => {
  // Tests wait on this with Atomics.wait, with their own thread blocked the way a training step blocks it.
  if (!counter) return;
  Atomics.add(counter, 0, 1);
  Atomics.notify(counter, 0);
});
