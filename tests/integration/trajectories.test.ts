/**
 * The trajectory side of the dashboard against the real PostgreSQL, through the tRPC caller: the browser's
 * filters actually filter, pages never repeat rows, unscored rows stay unscored (null, sorted last, never 0), the
 * inspector's neighbours follow the browser's order, the group view ranks and diverges correctly, and the
 * compare view lists exactly the config paths that differ.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { TRPCError } from "@trpc/server";
import { createCaller } from "../../server/api/root";
import { createTrpcContext } from "../../server/api/trpc";
import { insertSyntheticRun } from "./helpers/synthetic-run";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { discardStepsFrom, recordStep } from "../../trainer/record/record-step";
import { makeStepRecord } from "../../trainer/record/testing/fixtures";
import { insertQueuedRun } from "../../trainer/record/testing/make-run";
import type { PolicyTokens } from "../../lib/policy-tokens";

let db: TestDatabase;
let runId: string;
let caller: ReturnType<typeof createCaller>;

before(async () => {
  db = await createTestDatabase("rl_test_dash");
  runId = await insertSyntheticRun(db.prisma);
  caller = createCaller(createTrpcContext(db.prisma));
});
after(async () => {
  await db?.drop();
});

async function listAll(input: Omit<Parameters<typeof caller.trajectories.list>[0], "limit" | "offset">, limit = 25) {
  const items = [];
  for (let offset = 0; ; offset += limit) {
    const page = await caller.trajectories.list({ ...input, limit, offset });
    items.push(...page.items);
    if (offset + limit >= page.total) return { items, total: page.total };
  }
}

test("paging through every trajectory returns each exactly once, with the total the run really has", async () => {
  const expected = await db.prisma.trajectory.count({ where: { runId } });
  const { items, total } = await listAll({ runId }, 30);
  assert.equal(total, expected);
  assert.equal(items.length, expected);
  assert.equal(new Set(items.map((i) => i.id)).size, expected);
  // Default order is by step ascending.
  assert.ok(items.every((t, i) => i === 0 || items[i - 1].step <= t.step));
  assert.ok(items[0].preview?.startsWith("Hi, this is"), "rows preview the first non-system message");
});

test("step and reward ranges, status, task and text filters each return only matching rows", async () => {
  const steps = await listAll({ runId, stepMin: 10, stepMax: 20 });
  assert.ok(steps.total > 0);
  assert.ok(steps.items.every((t) => t.step >= 10 && t.step <= 20));
  assert.equal(steps.total, await db.prisma.trajectory.count({ where: { runId, step: { gte: 10, lte: 20 } } }));

  const high = await listAll({ runId, rewardMin: 0.9 });
  assert.ok(high.total > 0 && high.items.every((t) => t.reward !== null && t.reward >= 0.9));

  const unscored = await listAll({ runId, status: ["unscored"] });
  assert.ok(unscored.total > 0, "the demo run has unscored trajectories");
  assert.ok(
    unscored.items.every((t) => t.status === "unscored" && t.reward === null),
    "unscored rows carry a null reward, not 0",
  );
  // A reward range excludes unscored rows rather than treating them as 0.
  const zeroOrLess = await listAll({ runId, rewardMax: 0 });
  assert.ok(zeroOrLess.items.every((t) => t.reward === 0));

  const task = await listAll({ runId, taskId: "airline-rebook-002" });
  assert.ok(task.total > 0 && task.items.every((t) => t.taskId === "airline-rebook-002"));

  // The passenger's name appears only in task 002's conversations (case-insensitive match).
  const text = await listAll({ runId, text: "arjun MEHTA" });
  assert.deepEqual(text.total, task.total);
  assert.ok(text.items.every((t) => t.taskId === "airline-rebook-002"));
  // LIKE wildcards are matched literally: no message contains a percent sign.
  assert.equal((await caller.trajectories.list({ runId, text: "%" })).total, 0);
  // Tool-call arguments are searchable too (the wrong day the policy chose appears only there and in replies).
  assert.ok((await caller.trajectories.list({ runId, text: "change_flight" })).total > 0);
});

test("end reason, verdict text and reward-component filters return only matching rows; the facets list what to filter by", async () => {
  const facets = await caller.trajectories.facets({ runId });
  assert.ok(facets.endReasons.includes("max_turns") && facets.endReasons.includes("user_done"), JSON.stringify(facets.endReasons));
  assert.deepEqual(facets.components, ["goal", "verified_reservation"]);

  const capped = await listAll({ runId, endReason: "max_turns" });
  assert.ok(capped.total > 0 && capped.items.every((t) => t.endReason === "max_turns"));
  assert.equal(capped.total, await db.prisma.trajectory.count({ where: { runId, endReason: "max_turns" } }));

  // The judge says "was not met" only of episodes that moved the reservation to the wrong day.
  const notMet = await listAll({ runId, verdict: "NOT MET" });
  assert.ok(notMet.total > 0 && notMet.items.every((t) => t.rewardComponents.goal === 0));

  const verified = await listAll({ runId, component: "verified_reservation", componentMin: 1 });
  assert.ok(verified.total > 0 && verified.items.every((t) => t.rewardComponents.verified_reservation === 1));
  const withGoal = await listAll({ runId, component: "goal" });
  assert.equal(
    withGoal.total,
    await db.prisma.trajectory.count({ where: { runId, status: { not: "unscored" } } }),
    "unscored rows have no components",
  );
});

test("sorting by reward puts the best first and unscored rows last, in either direction", async () => {
  for (const dir of ["desc", "asc"] as const) {
    const { items } = await listAll({ runId, sort: "reward", dir }, 40);
    const firstNull = items.findIndex((t) => t.reward === null);
    assert.ok(firstNull > 0);
    assert.ok(
      items.slice(firstNull).every((t) => t.reward === null),
      `unscored rows last (${dir})`,
    );
    const scored = items.slice(0, firstNull).map((t) => t.reward as number);
    assert.ok(scored.every((r, i) => i === 0 || (dir === "desc" ? scored[i - 1] >= r : scored[i - 1] <= r)));
  }
  const turns = await listAll({ runId, sort: "turns", dir: "desc" });
  assert.ok(turns.items.every((t, i) => i === 0 || turns.items[i - 1].numTurns >= t.numTurns));
});

test("the inspector's previous/next follow the browser's current filters and order", async () => {
  const filters = { runId, taskId: "airline-rebook-001", sort: "reward" as const, dir: "desc" as const };
  const { items } = await listAll(filters);
  const middle = 3;
  const n = await caller.trajectories.neighbors({ ...filters, id: items[middle].id });
  assert.deepEqual(n, {
    prevId: items[middle - 1].id,
    nextId: items[middle + 1].id,
    position: middle + 1,
    total: items.length,
    positionIsLowerBound: false,
    totalIsLowerBound: false,
  });
  const first = await caller.trajectories.neighbors({ ...filters, id: items[0].id });
  assert.equal(first.prevId, null);
  const last = await caller.trajectories.neighbors({ ...filters, id: items[items.length - 1].id });
  assert.equal(last.nextId, null);
  // Opened from outside the filtered set: no neighbours rather than wrong ones.
  const other = await caller.trajectories.list({ runId, taskId: "airline-rebook-002", limit: 1 });
  const outside = await caller.trajectories.neighbors({ ...filters, id: other.items[0].id });
  assert.deepEqual([outside.prevId, outside.nextId, outside.position, outside.total], [null, null, null, null]);
});

test("in the default step order (keyset lookups) every trajectory's neighbours are the rows beside it, both directions", async () => {
  for (const dir of ["desc", "asc"] as const) {
    const filters = { runId, stepMin: 10, stepMax: 30, sort: "step" as const, dir };
    const { items } = await listAll(filters);
    assert.ok(items.length > 20);
    for (let i = 0; i < items.length; i++) {
      const n = await caller.trajectories.neighbors({ ...filters, id: items[i].id });
      assert.equal(n.prevId, i > 0 ? items[i - 1].id : null, `prev of #${i} (${dir})`);
      assert.equal(n.nextId, i < items.length - 1 ? items[i + 1].id : null, `next of #${i} (${dir})`);
      assert.equal(n.position, i + 1);
      assert.equal(n.total, items.length);
    }
  }
});

test("one trajectory opens with its conversation, attributed messages and the LLM calls that produced them", async () => {
  const [row] = (await caller.trajectories.list({ runId, status: ["unscored"], limit: 1 })).items;
  const t = await caller.trajectories.get({ runId, id: row.id });
  assert.equal(t.reward, null);
  assert.equal(t.group.id, row.groupId);
  const sources = new Set(t.conversation.map((m) => m.source));
  for (const s of ["system", "policy", "user_simulator", "tool_simulator"]) assert.ok(sources.has(s as never), `has ${s} messages`);
  const callIds = new Set(t.llmCalls.map((c) => c.id));
  const referenced = t.conversation.flatMap((m) => m.llmCallIds ?? []);
  assert.ok(referenced.length > 0 && referenced.every((id) => callIds.has(id)), "every llmCallId on a message resolves to a recorded call");
  assert.ok(
    t.llmCalls.some((c) => c.role === "judge" && c.error),
    "the failed judge attempts are there with their errors",
  );
  assert.ok(t.expectedState && t.finalState, "final and expected states are returned for the state diff");

  const simia = await caller.trajectories.exportSimia({ runId, id: row.id });
  assert.equal(simia.reward, null, "an unscored episode exports as null, not 0");
  assert.equal(simia.conversation_history.length, t.conversation.filter((m) => m.role !== "system").length);
  // Simia records every call that produced a reply, a judge reply it could not parse included; calls that failed
  // outright stay in Rollout Lab's own history.
  assert.equal(simia.gpt_call_history.length, t.llmCalls.filter((c) => c.response !== null).length);
  assert.equal(
    simia.gpt_call_history.filter((c) => c.metadata.type === "final_evaluation").length,
    t.llmCalls.filter((c) => c.role === "judge" && c.response !== null).length,
    "the unparsable judge replies are in the record, so its reward is explained",
  );
  assert.equal(simia.episode_count, t.step);
});

test("the policy view returns the tokens recorded with the step, and says when a trajectory has none", async () => {
  const step = 10_000;
  const rec = makeStepRecord(step, 1, 2, 1);
  const ids = [...Buffer.from("<hi>ok")];
  const policyTokens: PolicyTokens = {
    ids,
    pieces: ids.map((b) => String.fromCharCode(b)),
    sampled: [0, 0, 0, 0, 1, 1],
    turns: [-1, -1, -1, -1, 0, 0],
    logprobs: [0, 0, 0, 0, -0.25, -1.5],
    truncatedPrompt: 3,
    contextSize: 512,
    update: { advantages: [0, 0, 0, 0, 0.7, 0.7], ratio: [null, null, null, null, 1.02, 0.97], clipped: [0, 0, 0, 0, 0, 1], kl: null },
  };
  rec.groups[0].trajectories[0].policyTokens = policyTokens;
  await recordStep(db.prisma, runId, rec);
  const rows = (await caller.trajectories.list({ runId, stepMin: step, limit: 10 })).items.sort((a, b) => a.indexInGroup - b.indexInGroup);
  const [withTokens, without] = await Promise.all(rows.map((r) => caller.trajectories.get({ runId, id: r.id })));
  assert.equal(withTokens.hasPolicyTokens, true);
  assert.equal(without.hasPolicyTokens, false);
  assert.deepEqual(await caller.trajectories.policyTokens({ runId, id: rows[0].id }), policyTokens);
  assert.equal(await caller.trajectories.policyTokens({ runId, id: rows[1].id }), null);
  await assert.rejects(
    caller.trajectories.policyTokens({ runId: "not-this-run", id: rows[0].id }),
    (e: unknown) => e instanceof TRPCError && e.code === "NOT_FOUND",
  );
  await discardStepsFrom(db.prisma, runId, step);
  assert.equal(await db.prisma.trajectoryTokens.count({ where: { trajectoryId: rows[0].id } }), 0, "discarding the step drops its tokens");
});

test("asking for a trajectory of another run, or an unknown one, is a clear 404", async () => {
  const [row] = (await caller.trajectories.list({ runId, limit: 1 })).items;
  await assert.rejects(
    caller.trajectories.get({ runId: "not-this-run", id: row.id }),
    (e: unknown) => e instanceof TRPCError && e.code === "NOT_FOUND" && /Trajectory/.test(e.message),
  );
  assert.deepEqual(await caller.trajectories.locate({ id: row.id }), { runId, id: row.id });
  await assert.rejects(caller.trajectories.locate({ id: "nope" }), (e: unknown) => e instanceof TRPCError && e.code === "NOT_FOUND");
  await assert.rejects(
    caller.trajectories.list({ runId, limit: 10, bogus: 1 } as never),
    (e: unknown) => e instanceof TRPCError && e.code === "BAD_REQUEST",
  );
});

test("task history has one point per step the task was sampled, with unscored samples counted, not averaged as 0", async () => {
  const h = await caller.trajectories.taskHistory({ runId, taskId: "airline-rebook-001" });
  assert.deepEqual(
    h.points.map((p) => p.step),
    [0, 10, 20, 30, 40, 50, 59],
  );
  const rows = await db.prisma.trajectory.findMany({ where: { runId, taskId: "airline-rebook-001" } });
  for (const p of h.points) {
    const atStep = rows.filter((r) => r.step === p.step);
    const scored = atStep.map((r) => r.reward).filter((r): r is number => r !== null);
    assert.equal(p.count, atStep.length);
    assert.equal(p.unscored, atStep.length - scored.length);
    if (scored.length) assert.ok(Math.abs((p.rewardMean as number) - scored.reduce((a, b) => a + b, 0) / scored.length) < 1e-9);
    else assert.equal(p.rewardMean, null);
  }
  assert.deepEqual((h.task as { id: string }).id, "airline-rebook-001");
  await assert.rejects(
    caller.trajectories.taskHistory({ runId, taskId: "no-such-task" }),
    (e: unknown) => e instanceof TRPCError && e.code === "NOT_FOUND",
  );
});

test("a group shows its samples best first with advantages, unscored last, and where each conversation diverges", async () => {
  const groups = await caller.groups.list({ runId, limit: 10 });
  assert.equal(groups.total, await db.prisma.group.count({ where: { runId } }));
  const page2 = await caller.groups.list({ runId, limit: 10, offset: 10 });
  assert.equal(page2.items.filter((g) => groups.items.some((x) => x.id === g.id)).length, 0, "pages do not repeat groups");

  const withUnscored = await db.prisma.trajectory.findFirst({ where: { runId, status: "unscored" } });
  const g = await caller.groups.get({ runId, groupId: withUnscored!.groupId });
  assert.equal(g.samples.length, 4);
  const rewards = g.samples.map((s) => s.reward);
  assert.equal(rewards[rewards.length - 1], null, "the unscored sample ranks last");
  const scored = rewards.filter((r): r is number => r !== null);
  assert.ok(scored.every((r, i) => i === 0 || scored[i - 1] >= r));
  // Every sample of a group shares the system prompt and the simulated user's opening.
  assert.ok(g.sharedPrefix >= 2);
  for (const s of g.samples) {
    if (s.divergesAt !== null) assert.ok(s.divergesAt >= g.sharedPrefix);
    if (s.uniqueFrom !== null) assert.ok(s.divergesAt !== null && s.uniqueFrom >= s.divergesAt);
  }
  await assert.rejects(
    caller.groups.get({ runId: "other", groupId: g.id }),
    (e: unknown) => e instanceof TRPCError && e.code === "NOT_FOUND",
  );
});

test("the config difference leaves out noise: names, empty lists against absent ones, defaults a stored config lacks", async () => {
  const launched = await insertQueuedRun(db.prisma, { name: "launched", environment: "guess-number", grpo: { learningRate: 2e-3 } });
  // As a run stored by an older version, or written by a script: no tags, no defaults filled in.
  const sparse = await insertQueuedRun(db.prisma, { name: "sparse", environment: "guess-number" });
  await db.prisma.run.update({
    where: { id: sparse },
    data: { config: { name: "sparse", environment: "guess-number", grpo: { learningRate: 1e-3 } } },
  });
  const c = await caller.trajectories.compareRuns({ runIds: [launched, sparse] });
  assert.deepEqual(c.configDiff, [{ path: "grpo.learningRate", values: ["0.002", "0.001"] }]);
  await db.prisma.run.deleteMany({ where: { id: { in: [launched, sparse] } } });
});

test("comparing runs lists exactly the config paths that differ and which runs recorded each metric", async () => {
  // A second, small run: the demo config with two changes, and one metric point.
  const run = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  const { id: _id, createdAt: _c, updatedAt: _u, config: base, ...fields } = run;
  void [_id, _c, _u];
  const config = { ...(base as Record<string, unknown>), seed: 99, extra: { note: "x" } };
  const other = (await db.prisma.run.create({ data: { ...fields, name: "variant", config } })).id;
  await db.prisma.metricPoint.create({ data: { runId: other, key: "reward/mean", step: 0, value: 0.5 } });
  const c = await caller.trajectories.compareRuns({ runIds: [runId, other] });
  assert.deepEqual(
    c.runs.map((r) => r.id),
    [runId, other],
  );
  assert.deepEqual(c.configDiff, [
    { path: "seed", values: ["7", "99"] },
    { path: "extra.note", values: [null, '"x"'] },
  ]);
  assert.ok(c.sameConfigCount > 10);
  const reward = c.metricKeys.find((k) => k.key === "reward/mean");
  assert.deepEqual([...(reward?.runIds ?? [])].sort(), [runId, other].sort());
  await assert.rejects(
    caller.trajectories.compareRuns({ runIds: [runId, "gone"] }),
    (e: unknown) => e instanceof TRPCError && e.code === "NOT_FOUND" && /"gone"/.test(e.message),
  );
  await db.prisma.run.delete({ where: { id: other } });
});
