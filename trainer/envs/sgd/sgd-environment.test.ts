import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { mkdtemp, writeFile, copyFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { createSgdEnvironment, loadSgdCorpus } from "./index";
import type { SgdTask } from "./sgd-task";
import type { EpisodeContext, Episode } from "../types";
import type { ConversationMessage, EpisodeEndReason } from "../../../lib/conversation";
import { DatasetError } from "../types";
import { offlineChat } from "./test-helpers";
import { sharedData } from "../../../tests/fixtures/shared-data";

const sgd = sharedData("data/sgd/train");
const SGD_TRAIN = sgd.dir;
const ctx = (maxTurns = 10): EpisodeContext => ({ seed: 7, llm: offlineChat(), maxTurns });

/** Runs a policy (a function of the conversation so far) until done; returns the transcript and end reason. */
async function rollout(ep: Episode, policy: (turn: number, seen: ConversationMessage[]) => string, maxTurns = 10) {
  const seen = await ep.reset();
  let end: EpisodeEndReason = "max_turns";
  for (let turn = 0; turn < maxTurns; turn++) {
    const text = policy(turn, seen);
    seen.push({ role: "assistant", source: "policy", content: text, turn });
    const r = await ep.step(text, turn);
    seen.push(...r.observations);
    if (r.done) {
      end = r.endReason ?? "max_turns";
      break;
    }
  }
  return { seen, end, evaluation: await ep.evaluate(end) };
}

/** A scripted "oracle" agent: calls each goal intent with the goal's values, then reports to the user. */
function oraclePolicy(task: SgdTask) {
  let next = 0;
  return (_turn: number, seen: ConversationMessage[]): string => {
    const last = seen[seen.length - 1];
    if (last.role === "tool") {
      const result = JSON.parse(last.content) as { results?: Record<string, string>[] };
      const first = result.results?.[0] ?? {};
      return `Done: I found ${Object.values(first).slice(0, 2).join(", ")}. Anything else?`;
    }
    const g = task.data.goal[next++];
    if (!g) return "Goodbye!";
    return `<tool_call>{"name": "${g.intent}", "arguments": ${JSON.stringify(g.parameters)}}</tool_call>`;
  };
}

test("imports the real SGD train split: 26 services, dialogues become goal tasks with their recorded calls", async () => {
  const corpus = await loadSgdCorpus(SGD_TRAIN);
  assert.equal(corpus.services.length, 26);
  const env = createSgdEnvironment();
  const tasks = await env.loadTasks!(SGD_TRAIN);
  const least = sgd.full ? 100 : 30; // 128 dialogues in the full file, 40 in the vendored sample
  assert.ok(tasks.length > least, `expected >${least} tasks, got ${tasks.length}`);
  const t = tasks.find((x) => x.id === "sgd-1_00000")!;
  assert.equal(t.split, "train");
  // The user first searched San Jose, then changed to Palo Alto; the goal keeps the last search and the booking.
  assert.deepEqual(
    t.data.goal.map((g) => g.intent),
    ["FindRestaurants", "ReserveRestaurant"],
  );
  assert.equal(t.data.goal[0].parameters.city, "Palo Alto");
  assert.equal(t.data.goal[1].parameters.restaurant_name, "Bird Dog");
  assert.equal(t.data.recordedCalls.length, 3);
});

test("a scripted agent calling the right services with the goal's slots completes the goal, the user stops, every turn is judged", async () => {
  const env = createSgdEnvironment();
  const tasks = await env.loadTasks!(SGD_TRAIN);
  const task = tasks.find((x) => x.id === "sgd-1_00001")!;
  const { seen, end, evaluation } = await rollout(env.createEpisode(task, ctx()), oraclePolicy(task));
  assert.equal(evaluation.components.goal_completion, 1);
  assert.equal(evaluation.components.tool_errors, 0);
  assert.equal(end, "user_done");
  // agent_gym's per-turn judge: each right call with the goal's values scores 0.75 (acceptable + right service +
  // all arguments, halved), each report of a result 0.375 (good); the episode is their mean.
  assert.equal(evaluation.reward, 0.563, evaluation.reasoning);
  assert.match(evaluation.reasoning, /turn 0: acceptable, right service, args 100% → 0\.750/);
  // Every observation is attributed: tool results to "tool", user turns to the simulator.
  assert.ok(seen.some((m) => m.role === "tool" && m.source === "tool" && m.toolCallId === "t0_call_0"));
  assert.ok(seen.filter((m) => m.role === "user").every((m) => m.source === "user_simulator"));
  assert.match(evaluation.reasoning, /FindRestaurants=1\.00/);
});

test("a call that matches no recording goes to the LLM mocker: its rows answer; offline it invents nothing and the first recording answers", async () => {
  const env = createSgdEnvironment();
  const tasks = await env.loadTasks!(SGD_TRAIN);
  const task = tasks.find((x) => x.id === "sgd-1_00001")!;
  const good = await rollout(env.createEpisode(task, ctx()), oraclePolicy(task));
  const wrongCall = (turn: number) =>
    turn % 2 === 0
      ? '{"name": "ReserveRestaurant", "arguments": {"restaurant_name": "Nowhere Diner", "city": "Atlantis", "time": "18:00"}}'
      : "Sorry, something went wrong. Can you repeat?";
  // With a tool-simulator endpoint, the LLM's rows answer, with the call's own values written in (as agent_gym does).
  const offline = offlineChat();
  const inventing = {
    chat: async (req: Parameters<typeof offline.chat>[0]) =>
      req.role === "tool_simulator"
        ? { text: '[{"restaurant_name": "Invented", "city": "X", "time": "19:00"}]', callId: "mocker-1" }
        : offline.chat(req),
  };
  const invented = await rollout(env.createEpisode(task, { seed: 7, llm: inventing, maxTurns: 4 }), wrongCall, 4);
  const inventedMsg = invented.seen.find((m) => m.role === "tool")!;
  assert.equal(inventedMsg.source, "tool_simulator", "an invented answer is the mocker's, not a recording");
  assert.deepEqual(inventedMsg.llmCallIds, ["mocker-1"]);
  assert.match(inventedMsg.content, /"restaurant_name":"Nowhere Diner","city":"Atlantis","time":"18:00"/);
  assert.ok(invented.evaluation.components.mocked_llm >= 1);
  // Offline the LLM mocker invents nothing (agent_gym's without a key): the method's first recording answers.
  const wrong = await rollout(env.createEpisode(task, ctx(4)), wrongCall, 4);
  const toolMsg = wrong.seen.find((m) => m.role === "tool")!;
  assert.equal(toolMsg.source, "tool", "a recording answered");
  assert.ok(toolMsg.llmCallIds?.length, "the LLM mocker's call is linked all the same");
  assert.ok(wrong.evaluation.components.mocked_first >= 1);
  assert.ok(wrong.evaluation.components.goal_completion < 1);
  assert.ok(wrong.evaluation.reward! < good.evaluation.reward! - 0.2, `${wrong.evaluation.reward} vs ${good.evaluation.reward}`);
  // Without agent_gym's fallbacks the same call is a tool error.
  const strict = createSgdEnvironment({ mocker: { fuzzy: false, llmFallback: false, anyRecording: false } });
  const strictRun = await rollout(strict.createEpisode(task, ctx(4)), wrongCall, 4);
  assert.match(strictRun.seen.find((m) => m.role === "tool")!.content, /"error":"no recorded transaction for ReserveRestaurant/);
  assert.ok(strictRun.evaluation.components.tool_errors >= 1);
});

test("the simulated user answers the slot the agent asks about from the goal instead of replaying text", async () => {
  const env = createSgdEnvironment();
  const task = env.builtinTasks().find((t) => t.id === "sgd-builtin-bike-flat-fremont-book")!;
  const ep = env.createEpisode(task, ctx());
  const opening = await ep.reset();
  assert.equal(opening[0].source, "system");
  assert.match(opening[0].content, /FindRepairShop/);
  const r = await ep.step("Sure! In which city should the shop be?", 0);
  assert.match(r.observations[0].content, /Fremont/);
  const r2 = await ep.step("And what kind of repair do you need?", 1);
  assert.match(r2.observations[0].content, /flat tire/);
});

test("builtin tasks run out of the box: the oracle solves every one of them", async () => {
  const env = createSgdEnvironment();
  assert.ok(env.builtinTasks().length >= 8);
  for (const task of env.builtinTasks()) {
    const { evaluation, end } = await rollout(env.createEpisode(task, ctx()), oraclePolicy(task));
    assert.equal(evaluation.components.goal_completion, 1, task.id);
    assert.equal(end, "user_done", task.id);
  }
});

test("a malformed dialogues file is rejected with a DatasetError naming the file and the dialogue", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "sgd-bad-"));
  await copyFile(path.join(SGD_TRAIN, "schema.json"), path.join(dir, "schema.json"));
  const bad = [{ dialogue_id: "9_00001", services: ["Restaurants_1"], turns: [{ speaker: "USER", frames: [] }] }];
  await writeFile(path.join(dir, "dialogues_001.json"), JSON.stringify(bad));
  await assert.rejects(loadSgdCorpus(dir), (e: unknown) => {
    assert.ok(e instanceof DatasetError);
    assert.match(e.message, /dialogues_001\.json \(record 9_00001\): turn 0/);
    return true;
  });
  await writeFile(path.join(dir, "dialogues_001.json"), "[{");
  await assert.rejects(loadSgdCorpus(dir), /dialogues_001\.json: not valid JSON/);
});

test("an unreadable judge reply leaves the episode unscored instead of 0", async () => {
  const env = createSgdEnvironment();
  const task = env.builtinTasks()[0];
  const llm = offlineChat();
  const judgeBroken = {
    chat: async (req: Parameters<typeof llm.chat>[0]) => (req.role === "judge" ? { text: "great job!", callId: "j" } : llm.chat(req)),
  };
  const { evaluation } = await rollout(env.createEpisode(task, { seed: 1, llm: judgeBroken, maxTurns: 6 }), oraclePolicy(task), 6);
  assert.equal(evaluation.reward, null);
  assert.equal(evaluation.components.goal_completion, 1);
});

test("the sgd config is validated with a message naming the bad field", () => {
  assert.throws(() => createSgdEnvironment({ judgeWeight: 2 }), /Invalid sgd environment config: judgeWeight/);
  assert.throws(() => createSgdEnvironment({ fewshot: 1 }), /Invalid sgd environment config/);
});

test("agent_gym's reward: turn scores are turn rewards; garbage turns score 0; goal_blend keeps the old blend", async () => {
  const env = createSgdEnvironment();
  const tasks = await env.loadTasks!(SGD_TRAIN);
  const task = tasks.find((x) => x.id === "sgd-1_00001")!;
  const ep = env.createEpisode(task, ctx(3));
  await ep.reset();
  const garbage = await ep.step("x#@! 9z%%~ q", 0);
  assert.equal(garbage.turnReward, 0, "random bytes are inappropriate");
  const asks = await ep.step("Sure! Which city should I search in?", 1);
  assert.equal(asks.turnReward, 0.375, "asking for a slot the goal needs is good (0.75 / 2)");
  // The right service with one of its two values right (the city the dialogue grounds, a cuisine it never does):
  // acceptable + right service + half the arguments, halved.
  const wrongService = await ep.step(
    '<tool_call>{"name": "FindRestaurants", "arguments": {"city": "Milpitas", "cuisine": "Ethiopian"}}</tool_call>',
    2,
  );
  assert.equal(wrongService.turnReward, 0.625);
  const ev = await ep.evaluate("max_turns");
  assert.ok(Math.abs(ev.reward! - (0 + 0.375 + wrongService.turnReward!) / 3) < 0.001, ev.reasoning);

  const blend = createSgdEnvironment({ rewardMode: "goal_blend" });
  const good = await rollout(blend.createEpisode(task, ctx()), oraclePolicy(task));
  assert.ok(good.evaluation.reward! > 0.85, `goal_blend reward ${good.evaluation.reward}`);
  assert.ok(good.evaluation.components.judge_quality !== undefined);
});
