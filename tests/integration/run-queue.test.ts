/** A queued run's page says where it is in the queue and what holds it (real PostgreSQL, the tRPC procedure). */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createCaller } from "../../server/api/root";
import { createTrpcContext } from "../../server/api/trpc";
import { describeQueueStanding } from "../../lib/run-status";
import { insertQueuedRun } from "../../trainer/record/testing/make-run";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { claimNextRun, claimRunById } from "../../trainer/worker/lease";

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase("rl_queue");
});
after(async () => {
  await db?.drop();
});

test("queued runs stand in claim order behind the runs training; the text says why they wait", async () => {
  const caller = createCaller(createTrpcContext(db.prisma));
  const first = await insertQueuedRun(db.prisma, { name: "first" });
  const second = await insertQueuedRun(db.prisma, { name: "second" });
  // Queued long ago with nothing training: no worker is running.
  await db.prisma.run.updateMany({ where: { id: { in: [first, second] } }, data: { createdAt: new Date(Date.now() - 120_000) } });
  await db.prisma.run.update({ where: { id: second }, data: { createdAt: new Date(Date.now() - 60_000) } });

  const idle = await caller.runs.queueStanding({ id: second });
  assert.deepEqual({ ...idle!, queuedSeconds: 0 }, { position: 2, queued: 2, training: 0, queuedSeconds: 0 });
  assert.match(describeQueueStanding(idle!), /^Queued: position 2 of 2 queued runs\. No run is training .*npm run worker/);

  // One run trains under a live lease, another's worker died (its lease lapsed): only the live one holds the queue.
  const live = await insertQueuedRun(db.prisma, { name: "training" });
  const dead = await insertQueuedRun(db.prisma, { name: "worker died" });
  await db.prisma.run.update({ where: { id: live }, data: { status: "running", leaseExpiresAt: new Date(Date.now() + 30_000) } });
  await db.prisma.run.update({ where: { id: dead }, data: { status: "running", leaseExpiresAt: new Date(Date.now() - 30_000) } });
  const head = await caller.runs.queueStanding({ id: first });
  assert.equal(head?.position, 1);
  assert.equal(head?.training, 1);
  assert.match(
    describeQueueStanding(head!),
    /^Queued: next to start of 2 queued runs\. 1 run is training now.*starts when a worker finishes/,
  );
  assert.match(
    describeQueueStanding((await caller.runs.queueStanding({ id: second }))!),
    /starts once the 1 queued before it have started/,
  );

  // Not queued any more: nothing to say.
  assert.equal(await caller.runs.queueStanding({ id: live }), null);
});

test("a run for the Slurm launcher is never claimed by a worker; its job claims it by id", async () => {
  await db.prisma.run.updateMany({ where: { status: { in: ["queued", "running"] } }, data: { status: "cancelled" } });
  const slurmRun = await insertQueuedRun(db.prisma, { name: "on slurm", execution: { launcher: "slurm" } });
  assert.equal(await claimNextRun(db.prisma, "worker-a", 30_000), null);
  const claimed = await claimRunById(db.prisma, slurmRun, "slurm-job-7", 30_000);
  assert.equal(claimed?.id, slurmRun);
  // Held under a live lease: a second job for the same run gets nothing (no two trainers on one run).
  assert.equal(await claimRunById(db.prisma, slurmRun, "slurm-job-8", 30_000), null);
  const workerRun = await insertQueuedRun(db.prisma, { name: "on a worker" });
  assert.equal((await claimNextRun(db.prisma, "worker-a", 30_000))?.id, workerRun);
});

test("runs waiting for Slurm stand in no worker's queue: a worker run behind them is next to start", async () => {
  await db.prisma.run.updateMany({ where: { status: { in: ["queued", "running"] } }, data: { status: "cancelled" } });
  const caller = createCaller(createTrpcContext(db.prisma));
  const onSlurm = await insertQueuedRun(db.prisma, { name: "on slurm", execution: { launcher: "slurm" } });
  const trainingOnSlurm = await insertQueuedRun(db.prisma, { name: "training on slurm", execution: { launcher: "slurm" } });
  await db.prisma.run.update({
    where: { id: trainingOnSlurm },
    data: { status: "running", leaseExpiresAt: new Date(Date.now() + 30_000) },
  });
  const onWorker = await insertQueuedRun(db.prisma, { name: "on a worker" });
  const standing = await caller.runs.queueStanding({ id: onWorker });
  assert.deepEqual({ ...standing!, queuedSeconds: 0 }, { position: 1, queued: 1, training: 0, queuedSeconds: 0 });
  assert.equal(await caller.runs.queueStanding({ id: onSlurm }), null, "its page shows the Slurm job instead");
});
