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
