import { test } from "node:test";
import assert from "node:assert/strict";
import type { ConversationMessage } from "../../lib/conversation";
import type { Environment, Task } from "../envs/types";
import { createOfflineLlm } from "../llm/offline-provider";
import { getEnvironment, listEnvironments, UnknownEnvironmentError } from "../envs/registry";
import { runEpisode, runEpisodes } from "./run-episode";

/** A counting environment: done when the policy says "stop"; throws on "boom" (for the error path). */
function toyEnv(delayMs = 0): Environment<{ n: number }> {
  return {
    name: "toy",
    description: "test double",
    builtinTasks: () => [{ id: "t", split: "train", tags: [], data: { n: 1 } }],
    createEpisode: (task) => ({
      reset: async () => [{ role: "user", source: "user_simulator", content: `count to ${task.data.n}`, turn: 0 } as ConversationMessage],
      step: async (text, turn) => {
        if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
        if (text === "boom") throw new Error("tool backend exploded");
        return {
          observations: [{ role: "user", source: "user_simulator", content: "go on", turn: turn + 1 }],
          turnReward: 0.1 * (turn + 1),
          done: text === "stop",
          endReason: text === "stop" ? "agent_finished" : undefined,
        };
      },
      evaluate: async (reason) => ({ reward: reason === "agent_finished" ? 1 : 0, components: {}, reasoning: reason }),
    }),
  };
}

const task: Task<{ n: number }> = { id: "t", split: "train", tags: [], data: { n: 3 } };
const ctx = { seed: 0, llm: createOfflineLlm() };

test("an episode records per-turn rewards, the end reason, policy outputs and timings", async () => {
  const seen: ConversationMessage[] = [];
  const traj = await runEpisode({
    env: toyEnv(),
    task,
    policy: async (_m, { turn }) => ({ text: turn === 2 ? "stop" : "more", tokens: 5, logProbs: [-0.1, -0.2] }),
    ctx,
    maxTurns: 10,
    onMessage: (m) => seen.push(m),
  });
  assert.equal(traj.status, "ok");
  assert.equal(traj.endReason, "agent_finished");
  assert.equal(traj.turns, 3);
  assert.deepEqual(
    traj.messages.filter((m) => m.source === "policy").map((m) => m.turnReward),
    [0.1, 0.2, 0.30000000000000004],
  );
  assert.deepEqual(traj.policyOutputs[0], { turn: 0, tokens: 5, logProbs: [-0.1, -0.2] });
  assert.equal(seen.length, traj.messages.length, "messages are streamed as they are appended");
  assert.ok(traj.timings.totalMs >= traj.timings.envMs);
});

test("a policy whose context is full ends the episode as truncated, and it is still scored", async () => {
  const traj = await runEpisode({
    env: toyEnv(),
    task,
    policy: async (_m, { turn }) => (turn === 2 ? { text: "", endEpisode: "context_full" } : { text: "more", tokens: 4 }),
    ctx,
    maxTurns: 10,
  });
  assert.equal(traj.endReason, "context_full");
  assert.equal(traj.status, "truncated");
  assert.equal(traj.turns, 2, "no turn is recorded for the call that could not be taken");
  assert.equal(traj.messages.filter((m) => m.source === "policy").length, 2);
  assert.deepEqual(traj.evaluation, { reward: 0, components: {}, reasoning: "context_full" });
});

test("the turn limit truncates; an environment exception is status error with its message, not a crash", async () => {
  const capped = await runEpisode({ env: toyEnv(), task, policy: async () => ({ text: "more" }), ctx, maxTurns: 2 });
  assert.equal(capped.endReason, "max_turns");
  assert.equal(capped.status, "truncated");
  assert.equal(capped.evaluation?.reward, 0);
  const broken = await runEpisode({ env: toyEnv(), task, policy: async () => ({ text: "boom" }), ctx, maxTurns: 2 });
  assert.equal(broken.status, "error");
  assert.equal(broken.endReason, "error");
  assert.match(broken.error ?? "", /tool backend exploded/);
  assert.equal(broken.messages.length, 2, "the conversation up to the failure is kept");
});

test("runEpisodes keeps order, respects the concurrency cap and survives failing episodes", async () => {
  let inFlight = 0;
  let peak = 0;
  const policy = async (_m: ConversationMessage[], { turn }: { turn: number }) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await new Promise((r) => setTimeout(r, 5));
    inFlight--;
    return { text: turn === 1 ? "stop" : "more" };
  };
  const jobs = Array.from({ length: 10 }, (_, i) => ({
    env: toyEnv(2),
    task: { ...task, id: `t${i}` },
    policy: i === 4 ? async () => ({ text: "boom" }) : policy,
    ctx,
    maxTurns: 5,
  }));
  const results = await runEpisodes(jobs, 3);
  assert.deepEqual(
    results.map((r) => r.taskId),
    jobs.map((j) => j.task.id),
  );
  assert.equal(results[4].status, "error");
  assert.equal(results.filter((r) => r.status === "ok").length, 9);
  assert.ok(peak <= 3, `peak ${peak}`);
});

test("the registry resolves names and lists valid ones on a typo", () => {
  for (const name of listEnvironments()) assert.equal(getEnvironment(name).name, name, "each entry builds the environment it names");
  assert.ok(listEnvironments().includes("simulated"));
  assert.throws(
    () => getEnvironment("simulatd"),
    (e: unknown) => e instanceof UnknownEnvironmentError && /Valid names: .*simulated/.test(e.message),
  );
});

test("tools offered as schemas reach the policy, and its structured calls reach the environment and the record", async () => {
  const tools = [{ name: "lookup", description: "find a record", parameters: { type: "object", properties: {} } }];
  const seenByEnv: unknown[] = [];
  const env: Environment<{ n: number }> = {
    name: "toy-tools",
    description: "test double",
    builtinTasks: () => [task],
    createEpisode: () => ({
      reset: async () => [{ role: "user", source: "user_simulator", content: "look it up", turn: 0 } as ConversationMessage],
      tools: () => tools,
      step: async (_text, turn, toolCalls) => {
        seenByEnv.push(toolCalls);
        const observations: ConversationMessage[] = (toolCalls ?? []).map((c) => ({
          role: "tool",
          source: "tool",
          content: "found",
          turn,
          toolCallId: c.id,
          name: c.name,
        }));
        return { observations, done: turn === 1, endReason: turn === 1 ? "agent_finished" : undefined };
      },
      evaluate: async () => ({ reward: 1, components: {}, reasoning: "" }),
    }),
  };
  const toolsSeen: unknown[] = [];
  const traj = await runEpisode({
    env,
    task,
    policy: async (_m, info) => {
      toolsSeen.push(info.tools);
      return info.turn === 0
        ? { text: "Checking.", toolCalls: [{ id: "call_9", name: "lookup", arguments: '{"q": 1}' }] }
        : { text: "done" };
    },
    ctx,
    maxTurns: 4,
  });
  assert.deepEqual(toolsSeen, [tools, tools]);
  assert.deepEqual(seenByEnv, [[{ id: "call_9", name: "lookup", arguments: '{"q": 1}' }], undefined]);
  const first = traj.messages.find((m) => m.source === "policy");
  assert.equal(first?.content, "Checking.");
  assert.deepEqual(first?.toolCalls, [{ id: "call_9", name: "lookup", arguments: { q: 1 } }]);
});
