import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import type { LlmChat, LlmChatRequest } from "../types";
import { DatasetError } from "../types";
import { createUserRlEnvironment } from "./index";
import { playGym } from "./testing/play-gym";
import { persuasionReward, stanceScore, STANCES } from "./persuade";

/** These tests read the gym's own feedback; UserRL's "\nReward: …" suffix is tested in userrl-parity.test.ts. */
const FEEDBACK_ONLY = { rewardInObservation: false };

test("PersuadeGym's reward rule: levels moved toward disagreement over 6, nothing for standing still or moving back", () => {
  // Values of UserRL's calculate_persuasion_reward and stance_to_score.
  assert.equal(persuasionReward("Strongly Agree", "Agree"), 0.166667);
  assert.equal(persuasionReward("Strongly Agree", "Neutral"), 0.5);
  assert.equal(persuasionReward("Partly Agree", "Disagree"), 0.5);
  assert.equal(persuasionReward("Strongly Agree", "Strongly Disagree"), 1);
  assert.equal(persuasionReward("Neutral", "Neutral"), 0);
  assert.equal(persuasionReward("Disagree", "Agree"), 0);
  assert.deepEqual(STANCES.map(stanceScore), [0, 0.1667, 0.3333, 0.5, 0.6667, 0.8333, 1]);
});

test("Persuade offline: each new counterpoint moves the user; off-topic and repeated arguments do not; strong disagreement ends it", async () => {
  const env = createUserRlEnvironment("persuade", FEEDBACK_ONLY);
  assert.ok(env.builtinTasks().length >= 8);
  for (const task of env.builtinTasks()) {
    const [first, ...rest] = task.data.counterpoints.map((c) => `[action] ${c.rebuttal}`);
    const { opening, steps, turnRewards, end, evaluation } = await playGym(env, task, [
      "[action] The weather is lovely today.",
      first,
      first,
      ...rest,
    ]);
    assert.match(opening[1].content, new RegExp(`strongly agree .*${task.data.claim.slice(0, 20)}`, "i"), task.id);
    assert.deepEqual(turnRewards, [0, 0.333333, 0, 0.333333, 0.333333], task.id);
    assert.equal(end, "env_terminal", task.id);
    assert.equal(evaluation.reward, 1);
    assert.equal(evaluation.components.arguments, 5);
    assert.ok(steps.every((s) => s.observations[0].source === "user_simulator"));
  }
  // Giving up early scores the stance reached.
  const task = env.builtinTasks()[0];
  const partial = await playGym(env, task, [`[action] ${task.data.counterpoints[0].rebuttal}`, "[finish]"]);
  assert.equal(partial.end, "agent_finished");
  assert.equal(partial.evaluation.reward, stanceScore("Partly Agree"));
});

test("Persuade with an LLM user: its stated stance sets the reward; an unreadable reply is asked again, then the episode is unscored", async () => {
  const env = createUserRlEnvironment("persuade", FEEDBACK_ONLY);
  const task = env.builtinTasks()[0];
  const requests: LlmChatRequest[] = [];
  const replies = [
    '```json\n{"thought": "hm", "response": "You have a point.", "stance": "Neutral"}\n```',
    '{"thought": "no", "response": "Now you overreach.", "stance": "Agree"}',
    "I refuse to answer in JSON.",
    '{"response": "still no stance"}',
  ];
  const llm: LlmChat = {
    async chat(req) {
      requests.push(req);
      return { text: replies[requests.length - 1], callId: `call-${requests.length}` };
    },
  };
  const r = await playGym(env, task, ["[action] Think of sleep.", "[answer] And of play.", "[action] And research."], llm);
  assert.deepEqual(r.turnRewards, [0.5, 0, 0]);
  assert.equal(r.steps[0].observations[0].content, "You have a point.");
  // The second call carries the claim, the stance so far and the first exchange.
  const prompt = requests[1].messages.map((m) => m.content).join("\n");
  for (const part of [
    task.data.claim,
    "Your stance so far: Neutral",
    "Persuader: Think of sleep.",
    "You: You have a point.",
    "And of play.",
  ])
    assert.ok(prompt.includes(part), part);
  // Unreadable twice: both calls were flagged as unusable, the retry saw its own bad reply, and nothing is scored.
  assert.equal(requests.length, 4);
  assert.ok(requests[2].validate!(replies[2]));
  assert.equal(requests[3].messages.at(-2)?.content, replies[2]);
  assert.equal(r.end, "error");
  assert.deepEqual(r.steps[2].observations[0].llmCallIds, ["call-3", "call-4"]);
  assert.equal(r.evaluation.reward, null);
  assert.match(r.evaluation.reasoning, /could not be read/);
});

test("PersuadeGym's statements file ({id, claim, argument}) imports; the user's reasons are what moves it", async () => {
  const env = createUserRlEnvironment("persuade", FEEDBACK_ONLY);
  const file = path.resolve(import.meta.dirname, "../../../tests/fixtures/userrl-shaped/all_statements_refined.json");
  const tasks = await env.loadTasks!(file);
  assert.deepEqual(
    tasks.map((t) => t.id),
    ["statement_001", "statement_002", "statement_003"],
  );
  const t = tasks[0];
  assert.equal(t.data.counterpoints.length, 2, "one per sentence of the argument");
  const r = await playGym(env, t, [
    "[action] Those edited photos are a small part of what teenagers see.",
    "[action] Late feeds can be switched off at night.",
  ]);
  assert.deepEqual(r.turnRewards, [0.5, 0.5]);
  assert.equal(r.evaluation.reward, 1);
  const dir = await mkdtemp(path.join(tmpdir(), "persuade-"));
  const bad = path.join(dir, "all_statements_refined.json");
  await writeFile(
    bad,
    JSON.stringify([
      { id: "s1", claim: "A claim.", argument: "A reason." },
      { id: "s2", claim: "No reason given." },
    ]),
  );
  await assert.rejects(
    env.loadTasks!(bad),
    (e: unknown) =>
      e instanceof DatasetError && /all_statements_refined\.json \(record s2\): a statement needs a claim and an argument/.test(e.message),
  );
});

test("Persuade reads moves and replies as PersuadeGym does: a bare message argues, a Python-dict reply is read", async () => {
  const env = createUserRlEnvironment("persuade");
  const task = env.builtinTasks()[0];
  const requests: LlmChatRequest[] = [];
  const replies = [
    "{'thought': 'hm', 'response': 'Fair enough.', 'stance': 'Partly Agree'}", // ast.literal_eval reads it
    '```json\n{"thought": "x", "response": "You\'re right.", "stance": "Disagree",}\n```', // a trailing comma too
    "{'response': 'Hm.', 'stance': 'Disagree'}",
  ];
  const llm: LlmChat = {
    async chat(req) {
      requests.push(req);
      return { text: replies[requests.length - 1], callId: `call-${requests.length}` };
    },
  };
  const r = await playGym(
    env,
    task,
    [
      "argument 0 about it", // no [action]: PersuadeGym argues it whole
      "[search] the evidence", // a bracket Persuade lacks: argued as written
      '<tool_call>{"name": "interact_with_env", "arguments": {"choice": "argue", "content": "one more"}}</tool_call>',
    ],
    llm,
  );
  assert.deepEqual(r.turnRewards, [0.333333, 0.5, 0]);
  assert.equal(r.steps[0].observations[0].content, "Fair enough.\nReward: 0.333333", "UserRL's tool text: feedback, then reward");
  assert.match(requests[0].messages.at(-1)!.content, /argument 0 about it/);
  assert.match(requests[1].messages.at(-1)!.content, /\[search\] the evidence/);
  assert.match(requests[2].messages.at(-1)!.content, /one more/);
});
