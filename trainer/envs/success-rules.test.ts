/**
 * Success as each environment defines it (lib/success-rules.ts), checked on real episodes: the count pass@k and
 * pass^k make. "Reward = 1" called a perfect binary search a failure on guess-number (turn penalty) and a wrong
 * BFCL play a success under the format reward (which pays up to 2).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ENVIRONMENT_NAMES } from "../../lib/environments";
import { summariseTrials } from "../../lib/pass-k";
import { REWARD_ONE, SUCCESS_RULE_ENVIRONMENTS, successRuleFor } from "../../lib/success-rules";
import { createBfclEnvironment } from "./bfcl";
import { getEnvironment } from "./registry";
import { offlineChat as offline } from "./scripted-demonstration";
import type { Environment, Evaluation, Task } from "./types";

async function playGold(env: Environment, task: Task, policy: string[]): Promise<Evaluation> {
  const episode = env.createEpisode(task, { seed: 0, llm: offline, maxTurns: policy.length });
  await episode.reset();
  let done = false;
  for (let turn = 0; turn < policy.length && !done; turn++) done = (await episode.step(policy[turn], turn)).done;
  return episode.evaluate(done ? "agent_finished" : "max_turns");
}

test("every environment states its own success rule", () => {
  for (const name of ENVIRONMENT_NAMES) assert.ok(SUCCESS_RULE_ENVIRONMENTS.includes(name), `${name} has no success rule`);
  assert.equal(successRuleFor("tau2-retail"), REWARD_ONE, "τ²'s figures keep τ²'s rule");
});

test("guess-number: binary search solves every secret, so every game is a success though most rewards are < 1", async () => {
  const env = getEnvironment("guess-number", { max: 8 });
  const tasks = env.builtinTasks();
  const demos = await env.demonstrations!(tasks);
  const trials = [];
  for (const demo of demos) {
    const policy = demo.messages.filter((m) => m.role === "assistant").map((m) => m.content);
    const ev = await playGold(
      env,
      tasks.find((t) => t.id === demo.taskId)!,
      policy,
    );
    trials.push({ taskId: demo.taskId!, reward: ev.reward, components: ev.components });
  }
  assert.equal(trials.filter((t) => (t.reward ?? 0) < 1).length, 7, "seven of eight need more than one guess");
  assert.equal(summariseTrials(trials, successRuleFor("guess-number")).passHat[1], 1);
  assert.equal(summariseTrials(trials).passHat[1], 1 / 8, "τ²'s reward = 1 would have said 1/8");
  // An unsolved game is no success.
  const lost = await playGold(env, tasks[0], ["8", "8"]);
  assert.equal(successRuleFor("guess-number").success(lost.reward!, lost.components), false);
});

test("BFCL: well-formed but wrong calls earn the format reward of 2 and are no success; gorilla's checker decides", async () => {
  const env = createBfclEnvironment({ rewardMode: "format", protocol: "bfcl" });
  const task = env.builtinTasks()[0];
  const wrong = await playGold(env, task, ["[ls(a=True)]"]);
  assert.ok((wrong.reward ?? 0) >= 1, `format reward ${wrong.reward}`);
  assert.equal(successRuleFor("bfcl").success(wrong.reward!, wrong.components), false);
  const gold = await env.demonstrations!([task]);
  const policy = gold[0].messages.filter((m) => m.role === "assistant").map((m) => m.content);
  const right = await playGold(env, task, policy);
  assert.equal(right.components.bfcl_valid, 1, right.reasoning);
  assert.equal(successRuleFor("bfcl").success(right.reward!, right.components), true);
});

test("UserRL gyms and the rest: every gold play that solves its task by the gym's own criterion counts", async () => {
  for (const name of ENVIRONMENT_NAMES) {
    const env = getEnvironment(name, {});
    if (!env.demonstrations) continue;
    const tasks = env.builtinTasks().slice(0, 4);
    const demos = await env.demonstrations(tasks);
    let successes = 0;
    for (const demo of demos) {
      const task = tasks.find((t) => t.id === demo.taskId);
      if (!task) continue;
      const policy = demo.messages.filter((m) => m.role === "assistant").map((m) => m.content);
      const ev = await playGold(env, task, policy);
      if (ev.reward !== null && successRuleFor(name).success(ev.reward, ev.components)) successes++;
    }
    if (demos.length) assert.ok(successes > 0, `${name}: no gold play counts as a success under "${successRuleFor(name).text}"`);
  }
});
