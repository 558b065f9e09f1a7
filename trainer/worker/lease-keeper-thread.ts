/**
 * The thread half of keepLeaseInThread (lease-keeper.ts): renews one run's lease every heartbeatMs over its own
 * database connection, reports each result to the main thread, and stops renewing if the main thread stops ticking.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createPrismaClient } from "../../db/client";
import { firstLine } from "../../lib/error-text";
import { heartbeat } from "./lease";
import type { FromKeeper, ToKeeper } from "./lease-keeper";

const { databaseUrl, runId, workerId, leaseMs, heartbeatMs, maxStallMs } = workerData as {
  databaseUrl: string;
  runId: string;
  workerId: string;
  leaseMs: number;
  heartbeatMs: number;
  maxStallMs: number;
};
const port = parentPort!;
const send = (msg: FromKeeper) => port.postMessage(msg);
const db = createPrismaClient(databaseUrl, 1);
let lastTick = Date.now();
let stalled = false;
let beating: Promise<void> = Promise.resolve();

async function beat() {
  const silentMs = Date.now() - lastTick;
  if (silentMs > maxStallMs) {
    if (!stalled) send({ type: "stalled", seconds: Math.round(silentMs / 1000) });
    stalled = true;
    return;
  }
  stalled = false;
  try {
    send({ type: "beat", result: await heartbeat(db, runId, workerId, leaseMs) });
  } catch (err) {
    send({ type: "error", message: `heartbeat failed (will retry): ${firstLine(err)}` });
  }
}

// The first beat at once: the main thread waits for it before it starts training (lease-keeper.ts).
beating = beating.then(beat);
const timer = setInterval(() => {
  beating = beating.then(beat);
}, heartbeatMs);

port.on("message", (msg: ToKeeper) => {
  if (msg.type === "tick") lastTick = Date.now();
  else {
    clearInterval(timer);
    void beating.then(() => db.$disconnect()).finally(() => port.close());
  }
});
