/**
 * recordStep against the real PostgreSQL: one step is all-or-nothing (a failure injected between writes leaves
 * nothing of that step), recording a step twice leaves one copy, and a worker that lost its lease cannot write.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { discardStepsFrom, LeaseLostError, recordStep } from "../../trainer/record/record-step";
import { makeStepRecord } from "../../trainer/record/testing/fixtures";
import { insertQueuedRun } from "../../trainer/record/testing/make-run";

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase("rl_record");
});
after(async () => {
  await db?.drop();
});

async function counts(runId: string, step?: number) {
  const p = db.prisma;
  const where = step === undefined ? { runId } : { runId, step };
  return {
    groups: await p.group.count({ where }),
    trajectories: await p.trajectory.count({ where }),
    llmCalls: await p.llmCall.count({ where: step === undefined ? { runId } : { runId, trajectory: { step } } }),
    metrics: await p.metricPoint.count({ where }),
    events: await p.runEvent.count({ where }),
  };
}

test("a step is written completely: groups, trajectories, linked LLM calls, metrics, events, run progress", async () => {
  const runId = await insertQueuedRun(db.prisma);
  const rec = makeStepRecord(0, 2, 3, 2);
  await recordStep(db.prisma, runId, rec);
  const c = await counts(runId, 0);
  assert.deepEqual(c, { groups: 2, trajectories: 6, llmCalls: 6 * 5, metrics: 2, events: 1 });
  const run = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  assert.equal(run.step, 1);
  assert.equal(run.latestReward, 0.5);
  const call = await db.prisma.llmCall.findFirstOrThrow({ where: { runId, role: "tool_simulator", turn: 1 } });
  assert.ok(call.trajectoryId, "LLM call is linked to its trajectory");
  const traj = await db.prisma.trajectory.findUniqueOrThrow({ where: { id: call.trajectoryId } });
  const conv = traj.conversation as { llmCallIds?: string[] }[];
  assert.ok(
    conv.some((m) => m.llmCallIds?.includes(call.id)),
    "the conversation message names the call that produced it",
  );
});

for (const failAt of ["groups", "trajectories", "policy-tokens", "llm-calls", "metrics", "events"] as const) {
  test(`a failure after writing ${failAt} leaves nothing of the step and the run unchanged`, async () => {
    const runId = await insertQueuedRun(db.prisma);
    await recordStep(db.prisma, runId, makeStepRecord(0));
    const before = await counts(runId);
    await assert.rejects(
      recordStep(db.prisma, runId, makeStepRecord(1), {
        onStage: (s) => {
          if (s === failAt) throw new Error("disk full (injected)");
        },
      }),
      /injected/,
    );
    assert.deepEqual(await counts(runId), before);
    assert.deepEqual(await counts(runId, 1), { groups: 0, trajectories: 0, llmCalls: 0, metrics: 0, events: 0 });
    const run = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
    assert.equal(run.step, 1, "Run.step still says one completed step");
  });
}

test("recording the same step twice (resume after a crash) leaves one copy", async () => {
  const runId = await insertQueuedRun(db.prisma);
  const rec = makeStepRecord(4, 2, 2, 1);
  await recordStep(db.prisma, runId, rec);
  // an event of the same step that recordStep did not write (a checkpoint note) must survive the re-recording
  await db.prisma.runEvent.create({ data: { runId, level: "info", message: "checkpoint saved", step: 4 } });
  await recordStep(db.prisma, runId, rec); // same LLM call ids: must not collide
  await recordStep(db.prisma, runId, makeStepRecord(4, 2, 2, 1)); // a re-run of the step with new rollouts
  assert.deepEqual(await counts(runId, 4), { groups: 2, trajectories: 4, llmCalls: 4 * 3, metrics: 2, events: 2 });
  assert.equal(await db.prisma.runEvent.count({ where: { runId, step: 4, message: "checkpoint saved" } }), 1);
});

test("unscorable rewards are stored as NULL, and non-finite metrics are skipped (a gap, not a 0)", async () => {
  const runId = await insertQueuedRun(db.prisma);
  const rec = makeStepRecord(0, 1, 2, 1);
  rec.groups[0].trajectories[0].reward = null;
  rec.metrics = { "reward/mean": 0.5, kl: Number.NaN, entropy: null };
  await recordStep(db.prisma, runId, rec);
  const t = await db.prisma.trajectory.findFirstOrThrow({ where: { runId, indexInGroup: 0 } });
  assert.equal(t.reward, null);
  const keys = (await db.prisma.metricPoint.findMany({ where: { runId } })).map((m) => m.key);
  assert.deepEqual(keys, ["reward/mean"]);
});

test("with workerId, a worker that lost its lease cannot write the step", async () => {
  const runId = await insertQueuedRun(db.prisma, {}, { workerId: "host:2:new-owner", status: "running" });
  await assert.rejects(recordStep(db.prisma, runId, makeStepRecord(0), { workerId: "host:1:old-owner" }), LeaseLostError);
  assert.equal((await counts(runId)).groups, 0);
  await recordStep(db.prisma, runId, makeStepRecord(0), { workerId: "host:2:new-owner" });
  assert.equal((await counts(runId)).groups, 2);
});

test("discardStepsFrom removes steps at and after a resume point but keeps earlier ones and run-level events", async () => {
  const runId = await insertQueuedRun(db.prisma);
  for (let s = 0; s < 4; s++) await recordStep(db.prisma, runId, makeStepRecord(s, 1, 2, 1));
  await db.prisma.runEvent.create({ data: { runId, level: "info", message: "checkpoint saved", step: 3 } });
  await discardStepsFrom(db.prisma, runId, 2);
  const steps = (await db.prisma.metricPoint.findMany({ where: { runId, key: "reward/mean" }, orderBy: { step: "asc" } })).map(
    (m) => m.step,
  );
  assert.deepEqual(steps, [0, 1]);
  assert.equal(await db.prisma.group.count({ where: { runId, step: { gte: 2 } } }), 0);
  assert.equal(await db.prisma.runEvent.count({ where: { runId, message: "checkpoint saved" } }), 1);
  assert.equal((await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).step, 2);
});

test("a policy message containing NUL bytes (untrained byte-level policy) is recorded, with U+FFFD in their place", async () => {
  const runId = await insertQueuedRun(db.prisma);
  const rec = makeStepRecord(0, 1, 2, 1);
  const policyMessage = rec.groups[0].trajectories[0].conversation.find((m) => m.source === "policy")!;
  policyMessage.content = "ok\u0000\u0000done";
  await recordStep(db.prisma, runId, rec);
  const t = await db.prisma.trajectory.findFirstOrThrow({ where: { runId, indexInGroup: 0 } });
  const stored = (t.conversation as { source: string; content: string }[]).find((m) => m.source === "policy")!;
  assert.equal(stored.content, "ok\uFFFD\uFFFDdone");
});
