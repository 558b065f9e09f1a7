/**
 * A second worker in its own process that only tries to claim runs (every 100 ms) and prints what it took. Used to
 * check that a busy worker's lease never lapses: in the same process a thief would be blocked by the same TF.js
 * work as the owner's heartbeat and prove nothing. Usage: node --import tsx lease-thief.ts <database url> <lease ms>
 */
import { createPrismaClient } from "../../../db/client";
import { claimNextRun } from "../../../trainer/worker/lease";

const [url, leaseMs] = process.argv.slice(2);
const db = createPrismaClient(url, 1);
const timer = setInterval(async () => {
  const run = await claimNextRun(db, "lease-thief", Number(leaseMs)).catch(() => null);
  if (run) console.log(`stole ${run.id}`);
}, 100);
process.on("SIGTERM", async () => {
  clearInterval(timer);
  await db.$disconnect();
  process.exit(0);
});
console.log("ready");
