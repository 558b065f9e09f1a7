import { test } from "node:test";
import assert from "node:assert/strict";
import { percentile, summariseEval, summariseStep } from "./summarise-step";
import { makeGroup, makeLlmCall, makeTrajectory } from "./testing/fixtures";

test("reward stats ignore unscorable trajectories instead of counting them as 0", () => {
  const m = summariseStep({ groups: [makeGroup(0, [1, 0, null, 0.5])] });
  assert.equal(m["reward/mean"], 0.5);
  assert.equal(m["reward/min"], 0);
  assert.equal(m["reward/max"], 1);
  assert.ok(Math.abs(m["reward/std"] - Math.sqrt(1 / 6)) < 1e-12);
  assert.equal(m["env/unscored"], 1);
});

test("a step with nothing scored has no reward points (a gap), not zeros", () => {
  const m = summariseStep({ groups: [makeGroup(0, [null, null])] });
  assert.equal(m["reward/mean"], undefined);
  assert.equal(m["reward/zero_variance_group_frac"], undefined);
  assert.equal(m["env/unscored"], 2);
});

test("zero-variance group fraction counts groups whose rewards are all equal", () => {
  const m = summariseStep({ groups: [makeGroup(0, [1, 1]), makeGroup(1, [0, 1]), makeGroup(2, [0, 0]), makeGroup(3, [0.5, 1])] });
  assert.equal(m["reward/zero_variance_group_frac"], 0.5);
});

test("reward components are averaged under reward/<name>", () => {
  const t1 = makeTrajectory({ reward: 1, components: { task_success: 1, politeness: 0.5 } });
  const t2 = makeTrajectory({ reward: 0, components: { task_success: 0 } });
  const m = summariseStep({ groups: [{ ...makeGroup(0, []), trajectories: [t1, t2] }] });
  assert.equal(m["reward/task_success"], 0.5);
  assert.equal(m["reward/politeness"], 0.5);
});

test("advantage, response length, turns and tool errors", () => {
  const g = makeGroup(0, [1, 0], 3);
  g.trajectories[0].conversation.push({
    role: "user",
    source: "environment",
    turn: 2,
    content: "Could not parse your call",
    formatError: "bad_json: x",
  });
  g.trajectories[1].responseTokens = 100;
  const m = summariseStep({ groups: [g] });
  assert.equal(m["adv/mean"], 0);
  assert.equal(m["adv/max"], 0.5);
  assert.equal(m["adv/min"], -0.5);
  assert.equal(m["response/length_max"], 100);
  assert.equal(m["response/length_mean"], (72 + 100) / 2);
  assert.equal(m["env/turns_mean"], 3);
  assert.equal(m["env/tool_errors"], 1);
});

test("LLM usage per role: calls, latency percentiles, tokens, cost; absent roles write nothing", () => {
  const t = makeTrajectory({ turns: 1 });
  t.llmCalls = [10, 20, 30, 40, 1000].map((latencyMs) =>
    makeLlmCall("judge", null, { latencyMs, costUsd: 0.01, promptTokens: 5, completionTokens: 5 }),
  );
  const m = summariseStep({ groups: [{ ...makeGroup(0, []), trajectories: [t] }] });
  assert.equal(m["llm/judge/calls"], 5);
  assert.equal(m["llm/judge/latency_p50_ms"], 30);
  assert.equal(m["llm/judge/latency_p95_ms"], 1000);
  assert.equal(m["llm/judge/tokens"], 50);
  assert.ok(Math.abs(m["llm/judge/cost_usd"] - 0.05) < 1e-12);
  assert.equal(m["llm/user_simulator/calls"], undefined);
});

test("update metrics and timings are passed through; non-finite values are dropped", () => {
  const m = summariseStep({ groups: [], update: { "loss/policy": 0.25, kl: Number.NaN }, timings: { rollout_s: 1.5, update_s: 2 } });
  assert.equal(m["loss/policy"], 0.25);
  assert.equal("kl" in m, false);
  assert.equal(m["time/rollout_s"], 1.5);
  assert.equal(m["time/update_s"], 2);
});

test("percentile is nearest-rank", () => {
  assert.equal(percentile([5], 95), 5);
  assert.equal(percentile([1, 2, 3, 4], 50), 2);
  assert.equal(percentile([4, 3, 2, 1], 100), 4);
});

test("eval: pass@1 is mean per-sample success, pass^k needs every sample of a task to succeed", () => {
  const m = summariseEval([makeGroup(0, [1, 1], 1, "eval"), makeGroup(1, [1, 0], 1, "eval"), makeGroup(2, [0, null], 1, "eval")]);
  assert.equal(m["eval/pass@1"], (1 + 0.5 + 0) / 3);
  assert.equal(m["eval/pass^k"], 1 / 3);
  assert.equal(m["eval/reward_mean"], 3 / 5);
});
