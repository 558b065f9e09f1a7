import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import type { ConversationMessage, EpisodeEndReason } from "../../../lib/conversation";
import type { Environment, LlmChat, Task } from "../types";
import { DatasetError } from "../types";
import { createUserRlEnvironment, USERRL_GYMS, type GymData } from "./index";
import { applyRule } from "./arithmetic-rule";
import { createTauGymEnvironment } from "./tau";

/** These tests read the gym's own feedback; UserRL's "\nReward: …" suffix is tested in userrl-parity.test.ts. */
const FEEDBACK_ONLY = { rewardInObservation: false };

const llm: LlmChat = {
  async chat(req) {
    if (!req.offline) throw new Error("no offline reply");
    return { text: await req.offline(), callId: `c${Math.random().toString(36).slice(2, 8)}` };
  },
};

async function play<T>(env: Environment<T>, task: Task<T>, actions: string[], maxTurns = 20) {
  const ep = env.createEpisode(task, { seed: 1, llm, maxTurns });
  const opening = await ep.reset();
  const turnRewards: number[] = [];
  const feedback: ConversationMessage[] = [];
  let end: EpisodeEndReason = "max_turns";
  for (const [turn, a] of actions.entries()) {
    const r = await ep.step(a, turn);
    turnRewards.push(r.turnReward ?? 0);
    feedback.push(...r.observations);
    if (r.done) {
      end = r.endReason!;
      break;
    }
  }
  return { opening, turnRewards, feedback, end, evaluation: await ep.evaluate(end) };
}

test("every gym ships at least 8 valid tasks of its own", () => {
  for (const gym of USERRL_GYMS) assert.ok(createUserRlEnvironment(gym, FEEDBACK_ONLY).builtinTasks().length >= 8, gym);
});

test("Telepathy: good questions get truthful answers and the right guess earns reward 1 on that turn", async () => {
  const env = createUserRlEnvironment("telepathy", FEEDBACK_ONLY);
  for (const task of env.builtinTasks()) {
    const qs = task.data.facts.slice(0, 3).map((f) => `[action] Is it related to ${f.keywords[0]}?`);
    const { turnRewards, feedback, end, evaluation } = await play(env, task, [
      ...qs,
      "[answer] something else",
      `[answer] ${task.data.entity}`,
    ]);
    assert.deepEqual(
      feedback.slice(0, 3).map((m) => m.content),
      task.data.facts.slice(0, 3).map((f) => (f.answer === "yes" ? "Yes" : "No")),
      task.id,
    );
    assert.deepEqual(turnRewards, [0, 0, 0, 0, 1], task.id);
    assert.equal(end, "agent_finished");
    assert.equal(evaluation.reward, 1);
    assert.equal(evaluation.components.wrong_guesses, 1);
    assert.ok(feedback.every((m) => m.source === "user_simulator"));
  }
});

test("Turtle: a partial explanation earns part of the reward, the full story the rest, ending the episode", async () => {
  const env = createUserRlEnvironment("turtle", FEEDBACK_ONLY);
  for (const task of env.builtinTasks()) {
    const story = (cs: GymData<"turtle">["criteria"]) => cs.map((c) => c.keywords.map((g) => g[0]).join(" and ")).join(". ");
    const firstOnly = story(task.data.criteria.slice(0, 1));
    const { turnRewards, feedback, end, evaluation } = await play(env, task, [
      `[action] Does it involve ${task.data.facts[0].keywords[0]}?`,
      "[action] Was the weather sunny on Tuesday?",
      `[answer] ${firstOnly}`,
      `[answer] ${story(task.data.criteria)}`,
    ]);
    assert.equal(feedback[0].content, task.data.facts[0].answer === "yes" ? "Yes" : "No", task.id);
    assert.equal(feedback[1].content, "Irrelevant", task.id);
    assert.equal(turnRewards[2], task.data.criteria[0].weight, task.id);
    assert.ok(Math.abs(turnRewards[2] + turnRewards[3] - 1) < 1e-9, `${task.id}: ${turnRewards}`);
    assert.equal(end, "agent_finished");
    assert.equal(evaluation.reward, 1);
  }
});

test("Function: probing, [search] test and the right answer solve it, deterministically", async () => {
  const env = createUserRlEnvironment("function", FEEDBACK_ONLY);
  for (const task of env.builtinTasks()) {
    const actions = ["[action] 1 2 3 4", "[action] 2 2 2 2", "[search] test", `[answer] ${applyRule(task.data.rule, task.data.testCase)}`];
    const a = await play(env, task, ["[answer] 123456789", ...actions]);
    const b = await play(env, task, ["[answer] 123456789", ...actions]);
    assert.deepEqual(
      a.feedback.map((m) => m.content),
      b.feedback.map((m) => m.content),
      task.id,
    );
    assert.deepEqual(a.turnRewards, [0, 0, 0, 0, 1]);
    assert.equal(a.evaluation.reward, 1);
    assert.match(a.feedback[3].content, new RegExp(`Test case: \\[${task.data.testCase.join(", ")}\\]`));
    assert.ok(a.feedback.every((m) => m.source === "tool"));
  }
  const t = env.builtinTasks()[0];
  const probe = await play(env, t, [`[action] ${t.data.testCase.join(" ")}`, "[action] 1 2 3"]);
  assert.match(probe.feedback[0].content, /This is the test case/);
  assert.match(probe.feedback[1].content, /exactly four numbers/);
});

test("Intention: one focused question per detail earns the importance reward; a scattershot one is penalised", async () => {
  const env = createUserRlEnvironment("intention", FEEDBACK_ONLY);
  const expected = { 3: 1, 2: 0.7, 1: 0.4 } as const;
  for (const task of env.builtinTasks()) {
    const qs = task.data.details.map((d) => `[action] Could you tell me about the ${d.keywords[0]}?`);
    const { turnRewards, feedback, end, evaluation } = await play(env, task, ["[action] Is the sky blue?", ...qs]);
    assert.deepEqual(turnRewards, [0, ...task.data.details.map((d) => expected[d.importance])], task.id);
    assert.equal(feedback[1].content, task.data.details[0].answer);
    assert.equal(end, "env_terminal");
    assert.equal(evaluation.reward, 1);
  }
  const task = env.builtinTasks()[0];
  const both = `[action] What about ${task.data.details[0].keywords[0]} and ${task.data.details[1].keywords[0]}?`;
  const r = await play(env, task, [both, "[finish]"]);
  assert.equal(r.turnRewards[0], 0.8); // high-importance 1.0 minus 0.2 for the second detail
  assert.equal(r.end, "agent_finished");
  assert.ok(r.evaluation.reward! > 0 && r.evaluation.reward! < 1);
});

test("bad actions get format feedback from the environment, with no reward and no user reply", async () => {
  const env = createUserRlEnvironment("telepathy", FEEDBACK_ONLY);
  const task = env.builtinTasks()[0];
  const { feedback, turnRewards } = await play(env, task, ["Is it an animal?", "[search] giraffe facts", "[action]", "[finish]"]);
  assert.deepEqual(turnRewards, [0, 0, 0, 0]);
  for (const m of feedback.slice(0, 3)) {
    assert.equal(m.source, "environment");
    assert.ok(m.formatError, m.content);
    assert.match(m.content, /\[action\] <your question or action>, \[answer\] <your answer>, \[finish\]/);
  }
  assert.match(feedback[1].content, /This game has no \[search\]/);
});

test("the turn limit ends the episode as max_turns", async () => {
  const env = createUserRlEnvironment("function", FEEDBACK_ONLY);
  const { end, turnRewards } = await play(env, env.builtinTasks()[0], ["[action] 1 1 1 1", "[action] 2 2 2 2", "[action] 3 3 3 3"], 2);
  assert.equal(end, "max_turns");
  assert.equal(turnRewards.length, 2);
});

test("malformed task files are rejected with a DatasetError naming the file and task", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "userrl-"));
  const file = path.join(dir, "fn.json");
  await writeFile(
    file,
    JSON.stringify([
      { id: "f1", rule: "a + b", testCase: [1, 2, 3, 4] },
      { id: "f2", rule: "a + import(b)", testCase: [1, 2, 3, 4] },
    ]),
  );
  const env = createUserRlEnvironment("function", FEEDBACK_ONLY);
  await assert.rejects(
    env.loadTasks!(file),
    (e: unknown) => e instanceof DatasetError && /fn\.json \(record f2\): rule: unexpected/.test(e.message),
  );
  await writeFile(file, JSON.stringify([{ id: "t1", entity: "cat", category: "animal", facts: [{ keywords: ["pet"], answer: "maybe" }] }]));
  await assert.rejects(createUserRlEnvironment("telepathy", FEEDBACK_ONLY).loadTasks!(file), /record t1\): facts\.0\.answer/);
  await writeFile(file, JSON.stringify([{ id: "ok", rule: "a * d", testCase: [1, 2, 3, 4] }]));
  assert.equal((await env.loadTasks!(file))[0].split, "train");
});

test("configs are validated; the step penalty and clipping follow each gym's UserRL code", async () => {
  assert.throws(() => createUserRlEnvironment("turtle", { ...FEEDBACK_ONLY, stepPenlty: 0.1 }), /Invalid userrl-turtle config/);
  const t = createUserRlEnvironment("function", FEEDBACK_ONLY).builtinTasks()[0];
  const moves = ["[action] 1 1 1 1", "[action] 2 2 2 2", `[answer] ${applyRule(t.data.rule, t.data.testCase)}`];
  const rounded = (rs: number[]) => rs.map((r) => Number(r.toFixed(6)));
  // FunctionGym: turn k loses 0.1 × k, and by default (normalize_rewards=False) nothing is clipped.
  const unclipped = await play(createUserRlEnvironment("function", { ...FEEDBACK_ONLY, stepPenalty: 0.1 }), t, moves);
  assert.deepEqual(rounded(unclipped.turnRewards), [-0.1, -0.2, 0.7]);
  // Clipping asked for: the queries' 0 − 0.1 and 0 − 0.2 clip to 0; the correct answer at step 3 earns 1 − 0.3.
  const clipped = await play(createUserRlEnvironment("function", { ...FEEDBACK_ONLY, stepPenalty: 0.1, normalizeRewards: true }), t, moves);
  assert.deepEqual(rounded(clipped.turnRewards), [0, 0, 0.7]);
  // IntentionGym takes the penalty once per turn, and [finish] scores 0 whatever the penalty.
  const intention = createUserRlEnvironment("intention", { ...FEEDBACK_ONLY, stepPenalty: 0.1, normalizeRewards: false });
  const task = intention.builtinTasks()[0];
  const top = [...task.data.details].sort((a, b) => b.importance - a.importance)[0];
  const asked = await play(intention, task, ["[action] Is the sky blue?", `[action] What about the ${top.keywords[0]}?`, "[finish]"]);
  assert.deepEqual(rounded(asked.turnRewards), [-0.1, rounded([({ 3: 1, 2: 0.7, 1: 0.4 } as const)[top.importance] - 0.1])[0], 0]);
});

test("UserRL's tool-call form interact_with_env(choice, content) means the same as the bracketed text", async () => {
  const env = createUserRlEnvironment("telepathy", FEEDBACK_ONLY);
  const task = env.builtinTasks()[0];
  const call = (choice: string, content: string) =>
    `<tool_call>\n${JSON.stringify({ name: "interact_with_env", arguments: { choice, content } })}\n</tool_call>`;
  const q = `Is it related to ${task.data.facts[0].keywords[0]}?`;
  const asTool = await play(env, task, [call("action", q), call("answer", task.data.entity)]);
  const asText = await play(env, task, [`[action] ${q}`, `[answer] ${task.data.entity}`]);
  assert.deepEqual(
    asTool.feedback.map((m) => m.content),
    asText.feedback.map((m) => m.content),
  );
  assert.deepEqual(asTool.turnRewards, asText.turnRewards);
  const bad = await play(env, task, [call("dance", "now")]);
  assert.ok(bad.feedback[0].formatError);
  assert.match(bad.feedback[0].content, /choice must be action, answer, search or finish/);
});

test("normalizeRewards defaults to each gym's UserRL config: off for Function, Search, Travel and Tau, on for the others", async () => {
  const firstTurn = async <T>(env: Environment<T>, action: string) => {
    const ep = env.createEpisode(env.builtinTasks()[0], { seed: 1, llm, maxTurns: 5 });
    await ep.reset();
    return (await ep.step(action, 0)).turnReward ?? 0;
  };
  // A question earns nothing: with a step penalty of 0.5 the turn reward is -0.5 unclipped, 0 clipped.
  const penalty = { stepPenalty: 0.5 };
  assert.equal(
    await firstTurn(createUserRlEnvironment("function", { ...FEEDBACK_ONLY, ...FEEDBACK_ONLY, ...penalty }), "[action] 1 2 3 4"),
    -0.5,
  );
  assert.equal(
    await firstTurn(createUserRlEnvironment("search", { ...FEEDBACK_ONLY, ...FEEDBACK_ONLY, ...penalty }), "[answer] surely wrong"),
    -0.5,
  );
  assert.equal(
    await firstTurn(createUserRlEnvironment("travel", { ...FEEDBACK_ONLY, ...FEEDBACK_ONLY, ...penalty }), "[action] Hello there!"),
    -0.5,
  );
  assert.equal(await firstTurn(createTauGymEnvironment(penalty), "[search] help"), -0.5);
  assert.equal(
    await firstTurn(createUserRlEnvironment("telepathy", { ...FEEDBACK_ONLY, ...FEEDBACK_ONLY, ...penalty }), "[action] Is it alive?"),
    0,
  );
  assert.equal(
    await firstTurn(createUserRlEnvironment("function", { ...FEEDBACK_ONLY, ...penalty, normalizeRewards: true }), "[action] 1 2 3 4"),
    0,
  );
});

test("the policy sees each step's reward after the feedback, as UserRL's tool returns it; rewardInObservation: false shows the feedback alone", async () => {
  const env = createUserRlEnvironment("telepathy");
  const [task] = env.builtinTasks();
  const shown = env.createEpisode(task, { seed: 1, llm, maxTurns: 3 });
  await shown.reset();
  const step = await shown.step("[finish]", 0);
  assert.equal(step.observations[0].content, "Episode finished.\nReward: 0.0");
  const plain = createUserRlEnvironment("telepathy", FEEDBACK_ONLY).createEpisode(task, { seed: 1, llm, maxTurns: 3 });
  await plain.reset();
  assert.equal((await plain.step("[finish]", 0)).observations[0].content, "Episode finished.");
});
