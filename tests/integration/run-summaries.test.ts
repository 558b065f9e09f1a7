/** The runs table's metric columns: best reward, last KL and LLM cost, from the recorded steps (real PostgreSQL). */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createCaller } from "../../server/api/root";
import { createTrpcContext } from "../../server/api/trpc";
import { recordStep } from "../../trainer/record/record-step";
import { makeStepRecord } from "../../trainer/record/testing/fixtures";
import { insertQueuedRun } from "../../trainer/record/testing/make-run";
import { createTestDatabase, type TestDatabase } from "./helpers/db";

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase("rl_summaries");
});
after(async () => {
  await db?.drop();
});

test("best reward is the highest step mean, KL the last step's, cost the sum over steps and roles; a run with no steps has none", async () => {
  const runId = await insertQueuedRun(db.prisma);
  const empty = await insertQueuedRun(db.prisma);
  const rewards = [0.1, 0.7, 0.4];
  for (const [step, reward] of rewards.entries()) {
    const rec = makeStepRecord(step, 1, 1, 1);
    rec.metrics = { "reward/mean": reward, kl: 0.01 * (step + 1), "llm/judge/cost_usd": 0.25, "llm/user_simulator/cost_usd": 0.5 };
    await recordStep(db.prisma, runId, rec);
  }
  const caller = createCaller(createTrpcContext(db.prisma));
  const s = await caller.runs.summaries({ ids: [runId, empty] });
  assert.deepEqual(s[runId], { bestReward: 0.7, kl: 0.03, costUsd: 2.25 });
  assert.deepEqual(s[empty], { bestReward: null, kl: null, costUsd: null });
});

test("config columns: each listed run's scalar settings by path, and nothing for runs not asked for", async () => {
  const a = await insertQueuedRun(db.prisma, { name: "lr small", grpo: { learningRate: 1e-4 }, policy: { model: "tiny" } });
  const b = await insertQueuedRun(db.prisma, { name: "lr large", grpo: { learningRate: 3e-3 }, policy: { model: "small" } });
  const caller = createCaller(createTrpcContext(db.prisma));
  const leaves = await caller.runs.configLeaves({ ids: [a, b] });
  assert.deepEqual(Object.keys(leaves).sort(), [a, b].sort());
  assert.equal(leaves[a]["grpo.learningRate"], 1e-4);
  assert.equal(leaves[b]["grpo.learningRate"], 3e-3);
  assert.equal(leaves[b]["policy.model"], "small");
  assert.equal(leaves[a].name, "lr small");
  assert.ok(!Object.keys(leaves[a]).some((p) => p.includes("[")), "list entries are not columns");
});
