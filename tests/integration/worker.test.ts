/**
 * Trainer workers against the real PostgreSQL, with the loop's deterministic fake policy: concurrent claims never
 * share a run, a dead worker's run is reclaimed and resumed under the same id with continuous curves, cancel takes
 * effect within a step, a graceful stop puts the run back in the queue, and a failing run shows its error.
 */
import { after, before, test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { parseRunConfig, type RunConfigInput } from "../../lib/run-config";
import { claimNextRun, heartbeat } from "../../trainer/worker/lease";
import { TrainerWorker } from "../../trainer/worker/worker";
import { createFakeExecutor } from "../../trainer/worker/testing/fake-executor";
import { createPrismaSink } from "../../trainer/loop/prisma-sink";
import { trainRun } from "../../trainer/loop/train-run";
import { createFakeDeps } from "../../trainer/loop/testing/fake-deps";
import { createMemorySink } from "../../trainer/loop/memory-sink";
import { LeaseLostError, recordStep } from "../../trainer/record/record-step";
import { makeStepRecord } from "../../trainer/record/testing/fixtures";
import { insertQueuedRun } from "../../trainer/record/testing/make-run";

/**
 * Each of these tests takes a few seconds; a regression in leases or claims shows up as a wait that never ends, which
 * must fail here in seconds, not after the runner's default timeout.
 */
const TEST_TIMEOUT_MS = 30_000;
const test = (name: string, fn: () => Promise<void>) => nodeTest(name, { timeout: TEST_TIMEOUT_MS }, fn);

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase("rl_worker");
});
after(async () => {
  await db?.drop();
});

const CONFIG: RunConfigInput = {
  seed: 5,
  grpo: { steps: 6, groupsPerStep: 2, groupSize: 3, minibatchSize: 6 },
  checkpoint: { saveFreq: 2, keepLast: 3 },
  evaluation: { testFreq: 3, samplesPerTask: 2, maxTasks: 2 },
};
const tmp = () => mkdtempSync(path.join(tmpdir(), "rl-worker-"));
const quiet = () => {};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function series(runId: string, key: string): Promise<[number, number][]> {
  const rows = await db.prisma.metricPoint.findMany({ where: { runId, key }, orderBy: { step: "asc" } });
  return rows.map((r) => [r.step, r.value]);
}

async function referenceSeries(key: string): Promise<[number, number][]> {
  const sink = createMemorySink();
  const ac = new AbortController();
  await trainRun(parseRunConfig(CONFIG), createFakeDeps({ checkpointDir: tmp() }), sink, { signal: ac.signal, reason: () => null });
  return sink.series(key);
}

async function waitFor(what: string, fn: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

test("concurrent claims from several workers never hand out the same run twice", async () => {
  const ids = new Set<string>();
  for (let i = 0; i < 8; i++) ids.add(await insertQueuedRun(db.prisma, CONFIG));
  const attempts = Array.from({ length: 24 }, (_, i) => claimNextRun(db.prisma, `host:${i % 4}:w`, 30_000));
  const claimed = (await Promise.all(attempts)).filter((r) => r !== null).map((r) => r!.id);
  assert.equal(claimed.length, 8, "every queued run was claimed");
  assert.equal(new Set(claimed).size, 8, "no run was claimed twice");
  const rows = await db.prisma.run.findMany({ where: { id: { in: [...ids] } } });
  assert.ok(rows.every((r) => r.status === "running" && r.claims === 1 && r.workerId && r.leaseExpiresAt && r.startedAt));
  assert.equal(await claimNextRun(db.prisma, "host:9:w", 30_000), null, "live leases are not reclaimed");
  await db.prisma.run.updateMany({ where: { id: { in: [...ids] } }, data: { status: "succeeded" } });
});

test("a worker trains a queued run to the end: succeeded, every step recorded once, checkpoints kept", async () => {
  const runId = await insertQueuedRun(db.prisma, CONFIG);
  const worker = new TrainerWorker({ db: db.prisma, executeRun: createFakeExecutor(tmp()), log: quiet });
  assert.equal(await worker.runOnce(), true);
  const run = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  assert.equal(run.status, "succeeded");
  assert.equal(run.step, 6);
  assert.equal(run.workerId, null);
  assert.ok(run.finishedAt && run.latestReward !== null);
  assert.deepEqual(await series(runId, "reward/mean"), await referenceSeries("reward/mean"));
  assert.deepEqual(
    (await series(runId, "eval/pass@1")).map(([s]) => s),
    [2, 5],
  );
  assert.deepEqual(
    (await db.prisma.checkpoint.findMany({ where: { runId }, orderBy: { step: "asc" } })).map((c) => c.step),
    [2, 4, 6],
  );
  assert.equal(await db.prisma.trajectory.count({ where: { runId, split: "train" } }), 6 * 2 * 3);
  const recordTimes = await series(runId, "time/record_s");
  assert.deepEqual(
    recordTimes.map(([s]) => s),
    [0, 1, 2, 3, 4, 5],
    "every step shows what recording it cost",
  );
  assert.ok(recordTimes.every(([, v]) => v > 0 && v < 60));
});

test("a dead worker's run is reclaimed after its lease expires and resumes under the same id without gaps", async () => {
  const runId = await insertQueuedRun(db.prisma, CONFIG);
  const root = tmp();
  // Worker A claims with a short lease, trains 3 steps (checkpoint at 2), then "dies": no checkpoint, no heartbeat.
  const dead = await claimNextRun(db.prisma, "host-a:1:dead", 60_000);
  assert.equal(dead?.id, runId);
  const sinkA = createPrismaSink(db.prisma, runId, "host-a:1:dead");
  let stepsA = 0;
  const ac = new AbortController();
  const deadControl = { signal: ac.signal, reason: () => (stepsA >= 3 ? ("lease_lost" as const) : null) };
  const countingSink = {
    ...sinkA,
    recordStep: async (r: Parameters<typeof sinkA.recordStep>[0]) => (await sinkA.recordStep(r), void stepsA++),
  };
  await trainRun(parseRunConfig(CONFIG), createFakeDeps({ checkpointDir: path.join(root, runId) }), countingSink, deadControl);
  assert.equal((await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).step, 3);
  // Its last heartbeat, just before dying, extended the lease by 1.5 s.
  assert.equal((await heartbeat(db.prisma, runId, "host-a:1:dead", 1500)).held, true);

  const worker = new TrainerWorker({ db: db.prisma, executeRun: createFakeExecutor(root), leaseMs: 2000, log: quiet });
  assert.equal(await worker.runOnce(), false, "the lease has not expired yet");
  await sleep(1600);
  assert.equal(await worker.runOnce(), true);
  const run = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  assert.equal(run.status, "succeeded");
  assert.equal(run.claims, 2);
  assert.deepEqual(await series(runId, "reward/mean"), await referenceSeries("reward/mean"), "curves continue as if never interrupted");
  const events = await db.prisma.runEvent.findMany({ where: { runId }, orderBy: { id: "asc" } });
  assert.ok(events.some((e) => /Resumed from the checkpoint at step 2/.test(e.message)));

  // The presumed-dead worker wakes up: its writes are refused, and its heartbeat learns it lost the run.
  await assert.rejects(recordStep(db.prisma, runId, makeStepRecord(5), { workerId: "host-a:1:dead" }), LeaseLostError);
  assert.deepEqual(await heartbeat(db.prisma, runId, "host-a:1:dead", 300), { held: false, cancelRequested: false });
});

test("cancel takes effect within one step: checkpointed, status cancelled", async () => {
  const runId = await insertQueuedRun(db.prisma, { ...CONFIG, grpo: { ...CONFIG.grpo, steps: 50 } });
  const worker = new TrainerWorker({
    db: db.prisma,
    executeRun: createFakeExecutor(tmp(), { groupDelayMs: 60 }),
    leaseMs: 2000,
    heartbeatMs: 30,
    log: quiet,
  });
  const running = worker.runOnce();
  await waitFor("two recorded steps", async () => (await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).step >= 2);
  await db.prisma.run.update({ where: { id: runId }, data: { cancelRequested: true } });
  const stepAtCancel = (await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).step;
  await running;
  const run = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  assert.equal(run.status, "cancelled");
  assert.ok(run.step <= stepAtCancel + 1, `stopped within one step (cancel at ${stepAtCancel}, stopped at ${run.step})`);
  assert.ok(await db.prisma.checkpoint.findUnique({ where: { runId_step: { runId, step: run.step } } }), "checkpoint at the stop step");
  assert.ok(run.finishedAt);
});

test("stop() (the SIGTERM handler) puts the run back in the queue at a step boundary; another worker finishes it", async () => {
  const runId = await insertQueuedRun(db.prisma, CONFIG);
  const root = tmp();
  const first = new TrainerWorker({ db: db.prisma, executeRun: createFakeExecutor(root, { groupDelayMs: 40 }), log: quiet });
  const running = first.start();
  await waitFor("one recorded step", async () => (await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).step >= 1);
  first.stop();
  await running;
  const released = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  assert.equal(released.status, "queued");
  assert.equal(released.workerId, null);
  assert.ok(released.step >= 1 && released.step < 6);
  assert.ok(await db.prisma.checkpoint.findUnique({ where: { runId_step: { runId, step: released.step } } }));

  const second = new TrainerWorker({ db: db.prisma, executeRun: createFakeExecutor(root), log: quiet });
  assert.equal(await second.runOnce(), true);
  const run = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  assert.equal(run.status, "succeeded");
  assert.equal(run.claims, 2);
  assert.deepEqual(await series(runId, "reward/mean"), await referenceSeries("reward/mean"));
});

test("a run that throws is failed with the first line of the error and an error event", async () => {
  const runId = await insertQueuedRun(db.prisma, CONFIG);
  const worker = new TrainerWorker({
    db: db.prisma,
    executeRun: createFakeExecutor(tmp(), {
      failAtStep: 1,
      failMessage: "tool simulator returned garbage\n    at secret/internal/file.ts:12",
    }),
    log: quiet,
  });
  const origError = console.error;
  console.error = quiet;
  try {
    await worker.runOnce();
  } finally {
    console.error = origError;
  }
  const run = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  assert.equal(run.status, "failed");
  assert.equal(run.error, "tool simulator returned garbage");
  assert.equal(run.step, 1, "the completed step stays recorded");
  const errorEvent = await db.prisma.runEvent.findFirst({ where: { runId, level: "error" } });
  assert.match(errorEvent?.message ?? "", /tool simulator returned garbage/);
  assert.doesNotMatch(errorEvent?.message ?? "", /internal\/file/);
});

test("a queued run with a cancel request is cancelled without training; an invalid config fails clearly", async () => {
  const cancelled = await insertQueuedRun(db.prisma, CONFIG, { cancelRequested: true });
  const broken = await insertQueuedRun(db.prisma, CONFIG, { config: { grpo: { groupSize: 1 } } });
  const worker = new TrainerWorker({ db: db.prisma, executeRun: createFakeExecutor(tmp()), log: quiet });
  await worker.runOnce();
  await worker.runOnce();
  assert.equal((await db.prisma.run.findUniqueOrThrow({ where: { id: cancelled } })).status, "cancelled");
  assert.equal(await db.prisma.metricPoint.count({ where: { runId: cancelled } }), 0);
  const b = await db.prisma.run.findUniqueOrThrow({ where: { id: broken } });
  assert.equal(b.status, "failed");
  assert.match(b.error ?? "", /^The stored run config is invalid: grpo\.groupSize: groupSize must be at least 2/);
});

test("an error carrying NUL bytes and lone surrogates fails the run once: stored readably, never re-claimed", async () => {
  const runId = await insertQueuedRun(db.prisma, CONFIG);
  const worker = new TrainerWorker({
    db: db.prisma,
    executeRun: createFakeExecutor(tmp(), { failAtStep: 0, failMessage: "bad byte \u0000 in tasks.bin \ud800 here" }),
    log: quiet,
  });
  const origError = console.error;
  console.error = quiet;
  try {
    await worker.runOnce();
  } finally {
    console.error = origError;
  }
  const run = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  assert.equal(run.status, "failed");
  assert.equal(run.error, "bad byte \ufffd in tasks.bin \ufffd here");
  assert.equal(run.claims, 1);
  assert.equal(await claimNextRun(db.prisma, "another", 30_000), null, "nothing left to re-claim");
  assert.match((await db.prisma.runEvent.findFirstOrThrow({ where: { runId, level: "error" } })).message, /bad byte \ufffd/);
});

test("graceful restarts never count against a run; crashes in a row do, and a resume starts the count again", async () => {
  // Twelve deploys in a row (SIGTERM → back in the queue) do not fail a healthy run.
  const runId = await insertQueuedRun(db.prisma, { ...CONFIG, grpo: { ...CONFIG.grpo, steps: 14 } });
  for (let i = 0; i < 12; i++) {
    const w = new TrainerWorker({ db: db.prisma, executeRun: createFakeExecutor(tmp()), log: quiet });
    const running = w.runOnce();
    await waitFor("a step", async () => (await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).step > i);
    w.stop();
    await running;
    const r = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
    assert.equal(r.status, "queued", `deploy ${i + 1}: back in the queue, not failed (${r.error})`);
    assert.equal(r.crashes, 0);
  }
  // A run whose worker keeps dying: leases expire while it is "running"; the 11th such claim fails it.
  const crashing = await insertQueuedRun(db.prisma, CONFIG);
  await db.prisma.run.update({ where: { id: runId }, data: { status: "cancelled" } });
  for (let i = 0; i <= 10; i++) {
    const claimed = await claimNextRun(db.prisma, `dying-${i}`, 1);
    assert.equal(claimed?.id, crashing);
    assert.equal(claimed?.crashes, i, "counts claims after a death only");
    await sleep(5);
  }
  const worker = new TrainerWorker({ db: db.prisma, executeRun: createFakeExecutor(tmp()), log: quiet });
  await worker.runOnce();
  const failed = await db.prisma.run.findUniqueOrThrow({ where: { id: crashing } });
  assert.equal(failed.status, "failed");
  assert.match(failed.error ?? "", /A worker died or lost its lease 11 times in a row/);
  // The user resumes it: claimed from the queue, the count starts again and it trains to the end.
  await db.prisma.run.update({ where: { id: crashing }, data: { status: "queued", error: null } });
  await worker.runOnce();
  const resumed = await db.prisma.run.findUniqueOrThrow({ where: { id: crashing } });
  assert.equal(resumed.status, "succeeded", resumed.error ?? "");
  assert.equal(resumed.crashes, 0);
});
