/**
 * Re-scoring against the real PostgreSQL: a job created through the tRPC API is executed by the trainer's executor
 * (as a worker would), with the offline judge made stricter so verdicts flip; results sit beside the untouched
 * originals, with both reasonings, new group advantages and the re-judging LLM calls marked as such. Repeated noisy
 * judgements give the run a noise floor.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { TRPCError } from "@trpc/server";
import { createCaller } from "../../server/api/root";
import { createTrpcContext } from "../../server/api/trpc";
import { insertSyntheticRun } from "./helpers/synthetic-run";
import { claimNextRescoring } from "../../trainer/rescore/queue";
import { executeRescoring } from "../../trainer/rescore/execute";
import { runOneRescoring } from "../../trainer/rescore/loop";
import { createTestDatabase, type TestDatabase } from "./helpers/db";

let db: TestDatabase;
let runId: string;
let caller: ReturnType<typeof createCaller>;

before(async () => {
  db = await createTestDatabase("rl_test_rescore");
  runId = await insertSyntheticRun(db.prisma);
  caller = createCaller(createTrpcContext(db.prisma));
});
after(async () => {
  await db?.drop();
});

test("a stricter offline judge re-judges one step: flips with both reasonings, originals untouched, new advantages", async () => {
  const before = await db.prisma.trajectory.findMany({
    where: { runId, step: 30 },
    select: { id: true, reward: true, reasoning: true, advantage: true },
    orderBy: { id: "asc" },
  });
  const created = await caller.rescoring.create({
    runId,
    selection: { stepMin: 30, stepMax: 30 },
    scorer: { kind: "judge", offline: { threshold: 1 } },
  });
  assert.equal(created.status, "queued");
  assert.match(created.name, /offline judge \(threshold 1\) · step 30/);

  assert.equal(await runOneRescoring(db.prisma, "test-worker"), true);
  const res = await caller.rescoring.get({ runId, rescoringId: created.id });
  assert.equal(res.job.status, "succeeded");
  assert.equal(res.job.total, before.length);
  assert.equal(res.job.done, before.length);
  assert.equal(res.rows.length, before.length);
  assert.ok(res.comparison.flippedToFail > 0, "a stricter judge fails some trajectories the original passed");
  const flip = res.rows[0];
  assert.equal(flip.flip, "pass_to_fail", "flipped rows come first");
  assert.ok(flip.oldReasoning && flip.oldReasoning.length > 0);
  assert.match(flip.newReasoning ?? "", /Failure: .*✗ component verified_reservation = 0/);
  assert.ok(res.comparison.agreementRate !== null && res.comparison.agreementRate < 1);

  // What GRPO would have done: advantages from the new rewards, zero-mean within each fully scored group.
  const byGroup = new Map<string, number[]>();
  for (const r of res.rows) if (r.newAdvantage !== null) byGroup.set(r.groupId, [...(byGroup.get(r.groupId) ?? []), r.newAdvantage]);
  assert.ok(byGroup.size > 0);
  for (const advs of byGroup.values()) assert.ok(Math.abs(advs.reduce((a, b) => a + b, 0)) < 1e-6);
  assert.ok(res.rows.some((r) => r.newAdvantage !== null && r.oldAdvantage !== null && Math.abs(r.newAdvantage - r.oldAdvantage) > 0.1));

  const after = await db.prisma.trajectory.findMany({
    where: { runId, step: 30 },
    select: { id: true, reward: true, reasoning: true, advantage: true },
    orderBy: { id: "asc" },
  });
  assert.deepEqual(after, before, "the original scoring is never overwritten");

  const calls = await db.prisma.llmCall.findMany({ where: { trajectoryId: flip.trajectoryId, role: "judge" } });
  const marked = calls.filter((c) => (c.request as { params?: { rescoringId?: string } }).params?.rescoringId === created.id);
  assert.equal(marked.length, 1, "the re-judging call is recorded, linked to the trajectory and marked");
  assert.deepEqual(flip.llmCallIds, [marked[0].id]);
  assert.ok(calls.length > marked.length, "the original judge calls are still there");

  const onlyFlipped = await caller.rescoring.get({ runId, rescoringId: created.id, onlyFlipped: true });
  assert.equal(onlyFlipped.rows.length, res.comparison.flips);
  const list = await caller.rescoring.list({ runId });
  assert.equal(list[0].id, created.id);
});

test("k noisy judgements give agreement below 1 and a noise floor on the run's reliability figures", async () => {
  const created = await caller.rescoring.create({
    runId,
    name: "noisy k=5",
    selection: { stepMin: 50, stepMax: 59 },
    scorer: { kind: "judge", samples: 5, offline: { threshold: 0.5, noise: 0.3 } },
  });
  assert.equal(await runOneRescoring(db.prisma, "test-worker"), true);
  const res = await caller.rescoring.get({ runId, rescoringId: created.id });
  assert.equal(res.job.status, "succeeded");
  assert.equal(res.rows[0].samples.length, 5);
  assert.ok((res.reliability.meanAgreement ?? 1) < 1);
  const rel = await caller.signals.reliability({ runId });
  assert.equal(rel.perStep, 16);
  assert.ok(rel.noiseFloor !== null && rel.noiseFloor > 0 && rel.noiseFloor < 0.5, `noise floor ${rel.noiseFloor}`);
  assert.equal(rel.noiseFloorFrom?.id, created.id);
  assert.ok(rel.agreements.some((a) => a.a === "original" && a.b === created.id && a.compared > 0));
});

test("re-weighting components is a programmatic re-score", async () => {
  const created = await caller.rescoring.create({
    runId,
    selection: { stepMin: 59, stepMax: 59 },
    scorer: { kind: "weights", weights: { goal: 1 } },
  });
  assert.equal(await runOneRescoring(db.prisma, "test-worker"), true);
  const res = await caller.rescoring.get({ runId, rescoringId: created.id });
  for (const r of res.rows) if (r.oldReward !== null) assert.equal(r.newReward, r.oldReward > 0 ? 1 : 0);
});

test("bad requests say what to fix; a judge whose key variable is unset fails the job with that sentence", async () => {
  await assert.rejects(
    caller.rescoring.create({ runId, selection: { stepMin: 1000, stepMax: 1001 }, scorer: { kind: "judge" } }),
    (e: unknown) => e instanceof TRPCError && e.code === "BAD_REQUEST" && /No stored groups match steps 1000–1001/.test(e.message),
  );
  await assert.rejects(
    caller.rescoring.create({ runId: "nope", selection: {}, scorer: { kind: "judge" } }),
    (e: unknown) => e instanceof TRPCError && e.code === "NOT_FOUND",
  );
  const created = await caller.rescoring.create({
    runId,
    selection: { groupId: (await db.prisma.group.findFirstOrThrow({ where: { runId } })).id },
    scorer: { kind: "judge", endpoint: { baseUrl: "http://127.0.0.1:9/v1", model: "judge-x", apiKeyEnv: "UNSET_TEST_JUDGE_API_KEY" } },
  });
  const id = await claimNextRescoring(db.prisma, "w", 60_000);
  assert.equal(id, created.id);
  // The worker's environment: loopback endpoints allowed (as the test harness does), the key variable unset.
  const env = { ROLLOUT_LAB_LLM_BASE_URLS: "http://127.0.0.1:" };
  assert.equal(await executeRescoring(db.prisma, created.id, { workerId: "w", env }), "failed");
  const res = await caller.rescoring.get({ runId, rescoringId: created.id });
  assert.equal(res.job.status, "failed");
  assert.match(res.job.error ?? "", /UNSET_TEST_JUDGE_API_KEY/);
  assert.equal(await claimNextRescoring(db.prisma, "w", 60_000), null, "nothing left in the queue");
});
