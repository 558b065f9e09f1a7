/**
 * Evaluation runs against a scripted model on the loopback fake OpenAI server (real `openai` SDK, real HTTP): the
 * gold-replaying model scores what the tasks' gold actions score, a mixed one gives τ²'s pass^k, a 429 is waited
 * out, the cost ceiling stops the run, and garbage tool calls meet the environment's format-error path.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { sharedData } from "../../tests/fixtures/shared-data";
import { createOfflineLlm } from "../llm/offline-provider";
import { runEpisode } from "../rollout/run-episode";
import { evaluate, tasksOf, type Setup } from "./testing/evaluate";
import { goldReplier, recordGoldTranscripts, REFUSAL } from "./testing/gold-replier";

const REPO = path.resolve(import.meta.dirname, "../..");
const TAU2_MOCK = path.join(REPO, "tests/fixtures/tau2-mock");
const TAU2_RETAIL = sharedData("data/tau2/retail").dir;
const BFCL = sharedData("data/bfcl").dir;

/** τ² tasks whose reward counts natural-language assertions: offline (no judge endpoint) nothing can score them. */
const needsJudge = (t: { data: unknown }) => {
  const d = t.data as { rewardBasis?: string[]; nlAssertions?: string[] };
  return (d.rewardBasis?.includes("NL_ASSERTION") ?? false) && (d.nlAssertions?.length ?? 0) > 0;
};

async function goldEvaluation(s: Setup, k = 2) {
  const { env, tasks: all } = await tasksOf(s);
  const tasks = all.filter((t) => !needsJudge(t));
  const transcripts = await recordGoldTranscripts(env, tasks, s.maxTurns);
  const run = await evaluate({ ...s, tasks: tasks.map((t) => t.id) }, { reply: goldReplier(transcripts) }, { k });
  return { ...run, transcripts };
}

const GOLD_CASES: (Setup & { name: string })[] = [
  { name: "τ² retail (built-in tasks)", environment: "tau2-retail", maxTurns: 30 },
  {
    name: "τ² retail (the vendored sample of τ²'s tasks)",
    environment: "tau2-retail",
    datasetPath: TAU2_RETAIL,
    maxTasks: 6,
    maxTurns: 30,
  },
  { name: "τ² mock", environment: "tau2-retail", datasetPath: TAU2_MOCK, maxTasks: 6, maxTurns: 30 },
  {
    name: "BFCL base (gorilla's loop, the vendored sample)",
    environment: "bfcl",
    environmentOptions: { protocol: "bfcl" },
    datasetPath: BFCL,
    maxTasks: 4,
    maxTurns: 40,
  },
];

for (const c of GOLD_CASES) {
  test(`a model replaying the gold actions over the API scores pass@1 = 1 on ${c.name}`, async () => {
    const { outcome, summary, trajectories, transcripts, stats } = await goldEvaluation(c);
    assert.equal(outcome.kind, "completed");
    assert.ok(summary.tasks >= 2, `${summary.tasks} tasks`);
    assert.equal(summary.unscored, 0);
    assert.equal(summary.passHat[1], 1, `pass@1 ${summary.passHat[1]}; rewards ${trajectories.map((t) => t.reward).join(",")}`);
    assert.equal(summary.passHat[2], 1);
    assert.ok(
      transcripts.every((t) => t.reward === 1),
      "the gold play itself scores 1",
    );
    // The calls went out as tools and came back as tool_calls, answered by id.
    const calls = trajectories.flatMap((t) => t.llmCalls.filter((l) => l.role === "policy"));
    assert.ok(calls.length >= trajectories.length, "every trial called the model");
    assert.equal(stats.requests, calls.length);
    assert.ok(
      calls.every((l) => (l.request.tools?.length ?? 0) > 0),
      "tools sent as function schemas",
    );
    assert.ok(
      calls.some((l) => l.response?.toolCalls?.length),
      "tool_calls in the responses",
    );
    const answered = trajectories.flatMap((t) => t.conversation.filter((m) => m.source === "policy" && m.toolCalls?.length));
    assert.ok(answered.length > 0, "policy messages carry the calls the environment answered");
    const policyMessages = trajectories.flatMap((t) => t.conversation.filter((m) => m.source === "policy"));
    assert.ok(
      policyMessages.every((m) => m.llmCallIds?.length === 1),
      "each policy message names the call that produced it",
    );
  });
}

test("on guess-number (a text protocol: no tools) binary search solves every secret: pass@1 = 1, the turn penalty only in the reward", async () => {
  const { summary, trajectories } = await goldEvaluation({ environment: "guess-number", maxTurns: 8 }, 2);
  // Binary search over 1..8 with 0.25 lost per extra turn: 4 in one turn, 2 and 6 in two, 1/3/5/7 in three, 8 in four.
  // Every game is solved, so every trial is a success (guess-number's rule: solved), whatever the shaped reward.
  assert.equal(summary.tasks, 8);
  assert.equal(summary.passHat[1], 1);
  assert.equal(summary.passHat[2], 1);
  assert.match(summary.successRule, /solved/);
  assert.equal(summary.rewardMean, (1 + 2 * 0.75 + 4 * 0.5 + 0.25) / 8);
  const calls = trajectories.flatMap((t) => t.llmCalls.filter((l) => l.role === "policy"));
  assert.ok(
    calls.every((l) => l.request.tools === undefined),
    "no tools offered",
  );
});

const fixture = JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity/tau2-pass-hat-k.json"), "utf8")) as {
  mixed: { successes: Record<string, boolean[]>; passHatKs: Record<string, number> };
};

test("a mixed model's pass^1..4 equal τ²-bench's on the same outcomes", async () => {
  const s: Setup = { environment: "tau2-retail", datasetPath: TAU2_MOCK, maxTasks: 10, maxTurns: 20 };
  const { env, tasks } = await tasksOf(s);
  const transcripts = await recordGoldTranscripts(env, tasks, s.maxTurns);
  // Five tasks the gold solves and a refusal does not (a task that asks for nothing would pass when the model refuses).
  const refusal = async (taskId: string) => {
    const task = tasks.find((t) => t.id === taskId)!;
    const ctx = { seed: 0, llm: createOfflineLlm(), toolPresentation: "schemas" as const };
    const e = await runEpisode({ env, task, maxTurns: s.maxTurns, ctx, policy: async () => ({ text: REFUSAL }) });
    return e.evaluation?.reward ?? null;
  };
  // …and whose openings differ, so the model can tell them apart (two mock tasks share their customer's request).
  const useful: typeof transcripts = [];
  const opening = (t: (typeof transcripts)[number]) => JSON.stringify(t.turns[0].seen);
  for (const t of transcripts)
    if (t.reward === 1 && !useful.some((u) => opening(u) === opening(t)) && (await refusal(t.taskId)) !== 1) useful.push(t);
  useful.splice(5);
  assert.equal(useful.length, 5, "five solvable mock tasks");
  const pattern = Object.values(fixture.mixed.successes);
  const taskIndex = new Map(useful.map((t, i) => [t.taskId, i]));
  // The endpoint sends seed 100 + trial, so the model knows which trial it plays.
  const spoil = (taskId: string, seed: number | undefined) => taskIndex.has(taskId) && !pattern[taskIndex.get(taskId)!][(seed ?? 0) - 100];
  const run = await evaluate({ ...s, tasks: useful.map((t) => t.taskId) }, { reply: goldReplier(transcripts, { spoil }) }, { k: 4 });
  const successes = run.summary.perTask.map((t) => t.successes);
  assert.deepEqual(
    successes,
    pattern.map((p) => p.filter(Boolean).length),
    "the outcomes are the fixture's",
  );
  assert.equal(
    run.summary.unscored,
    0,
    JSON.stringify(run.trajectories.filter((t) => t.reward === null).map((t) => [t.status, t.error, t.reasoning])),
  );
  for (const [k, v] of Object.entries(fixture.mixed.passHatKs)) {
    assert.ok(Math.abs(run.summary.passHat[Number(k)] - v) < 1e-12, `pass^${k}: ${run.summary.passHat[Number(k)]} vs τ² ${v}`);
  }
  assert.equal(run.sink.series("eval/pass^4").at(-1)?.[1], run.summary.passHat[4], "recorded as the run's metric");
});
