import { test } from "node:test";
import assert from "node:assert/strict";
import type { LlmCallRecord } from "../../../lib/conversation";
import type { Task } from "../types";
import { LlmClient } from "../../llm/client";
import { runEpisode, type Policy } from "../../rollout/run-episode";
import { createSimulatedEnvironment, type SimulatedEnvConfigInput, type SimulatedTaskData } from "./index";

// These tests cover the split simulators (user + tool); simia-episode.test.ts covers Simia-RL's single simulator.
const env = createSimulatedEnvironment({ simulator: "split" });
const tasks = env.builtinTasks() as Task<SimulatedTaskData>[];
const task = (id: string): Task<SimulatedTaskData> => tasks.find((t) => t.id === id) ?? assert.fail(`no task ${id}`);

/** Asks for what the user knows, makes the expected calls one per turn, then reports the outcome. */
function goodPolicy(t: Task<SimulatedTaskData>): Policy {
  const d = t.data;
  return async (_messages, { turn }) => {
    if (turn === 0 && d.facts.length > 0)
      return { text: `Happy to help. Could you tell me your ${d.facts.map((f) => f.keys[0]).join(", ")}?` };
    const callIndex = turn - (d.facts.length > 0 ? 1 : 0);
    const c = d.expected.calls[callIndex];
    if (c) return { text: `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.arguments })}\n</tool_call>` };
    return { text: `All done. For your records: ${d.expected.facts.join(", ")}.` };
  };
}

const badPolicy: Policy = async () => ({ text: "I'm sorry, I can't help with that." });

async function run(t: Task<SimulatedTaskData>, policy: Policy, config: SimulatedEnvConfigInput = {}, maxTurns = 10) {
  const calls: LlmCallRecord[] = [];
  const traj = await runEpisode({
    env: createSimulatedEnvironment({ simulator: "split", ...config }),
    task: t,
    policy,
    ctx: { seed: 1, llm: new LlmClient({}), onLlmCall: (r) => calls.push(r) },
    maxTurns,
  });
  return { traj, calls };
}

test("ships at least 20 tasks across at least 4 domains, with train and test splits", () => {
  assert.ok(tasks.length >= 20, `${tasks.length} tasks`);
  assert.ok(new Set(tasks.map((t) => t.data.domain)).size >= 4);
  assert.ok(tasks.some((t) => t.split === "test") && tasks.some((t) => t.split === "train"));
});

test("a scripted good policy scores 1 on every shipped task and the user ends the conversation", async () => {
  for (const t of tasks) {
    const { traj } = await run(t, goodPolicy(t));
    assert.equal(traj.evaluation?.reward, 1, `${t.id}: ${traj.evaluation?.reasoning}`);
    assert.equal(traj.endReason, "user_done", t.id);
    assert.equal(traj.status, "ok");
  }
});

test("a bad policy scores 0, runs to the turn limit, and the reasoning says what was missed", async () => {
  const t = task("airline-change-earlier");
  const { traj } = await run(t, badPolicy, {}, 4);
  assert.equal(traj.evaluation?.reward, 0);
  assert.equal(traj.endReason, "max_turns");
  assert.equal(traj.status, "truncated");
  assert.equal(traj.evaluation?.components.calls, 0);
  assert.match(traj.evaluation?.reasoning ?? "", /✗ call find_reservation/);
});

test("partial progress shows in components; a lenient judge passes what a strict one fails", async () => {
  const t = task("airline-change-earlier");
  const partial: Policy = async (m, info) => (info.turn < 3 ? goodPolicy(t)(m, info) : { text: "Anything else?" });
  const strict = await run(t, partial, {}, 5);
  assert.equal(strict.traj.evaluation?.reward, 0);
  assert.ok(Math.abs((strict.traj.evaluation?.components.calls ?? 0) - 2 / 3) < 1e-9, "2 of 3 expected calls made");
  assert.equal(strict.traj.evaluation?.components.facts, 0);
  const lenient = await run(t, partial, { judge: { threshold: 0.5 } }, 5);
  assert.equal(lenient.traj.evaluation?.reward, 1);
});

test("wrong arguments get an error result from the tool simulator and no credit", async () => {
  const t = task("banking-balance");
  const wrong: Policy = async (_m, { turn }) =>
    turn === 0
      ? { text: '{"name": "verify_customer", "arguments": {"customer_id": "C-99999", "date_of_birth": "1984-07-19"}}' }
      : { text: "Your balance is unknown." };
  const { traj } = await run(t, wrong, {}, 2);
  const toolMsg = traj.messages.find((m) => m.role === "tool");
  assert.equal(toolMsg?.source, "tool_simulator");
  const policyMsg = traj.messages.find((m) => m.source === "policy");
  assert.equal(policyMsg?.toolCalls?.[0].name, "verify_customer", "the runner attaches the answered calls to the policy message");
  assert.equal(policyMsg?.toolCalls?.[0].id, toolMsg?.toolCallId);
  assert.match(toolMsg?.content ?? "", /error/);
  assert.equal(traj.evaluation?.components.calls, 0);
});

test("a forbidden call fails the episode even when everything else was done", async () => {
  const t = task("airline-basic-economy-cancel");
  const good = goodPolicy(t);
  const violator: Policy = async (m, info) =>
    info.turn === 2
      ? { text: '<tool_call>{"name": "cancel_reservation", "arguments": {"booking_code": "BX93M"}}</tool_call>' }
      : good(m, { ...info, turn: info.turn > 2 ? info.turn - 1 : info.turn });
  const { traj } = await run(t, violator);
  assert.equal(traj.evaluation?.reward, 0);
  assert.equal(traj.evaluation?.components.policy, 0);
});

test("malformed tool calls become environment observations and mark the policy message", async () => {
  const t = task("calendar-check-day");
  const broken: Policy = async () => ({ text: '<tool_call>{"name": "list_events", "arguments": {"date": }</tool_call>' });
  const { traj } = await run(t, broken, {}, 2);
  const policyMsgs = traj.messages.filter((m) => m.source === "policy");
  assert.ok(policyMsgs.every((m) => m.formatError?.startsWith("invalid_json")));
  const obs = traj.messages.filter((m) => m.source === "environment");
  assert.equal(obs.length, 2);
  assert.equal(obs[0].turn, 1, "an observation belongs to the turn that answers it");
  assert.equal(traj.evaluation?.components.format, 0);
});

test("every simulator and judge turn is an offline LLM call record linked from its message", async () => {
  const t = task("retail-track");
  const { traj, calls } = await run(t, goodPolicy(t));
  assert.deepEqual(
    traj.llmCalls.map((c) => c.id),
    calls.map((c) => c.id),
    "forwarded to ctx.onLlmCall as they happen",
  );
  const roles = new Set(calls.map((c) => c.role));
  assert.deepEqual([...roles].sort(), ["judge", "tool_simulator", "user_simulator"]);
  assert.ok(calls.every((c) => c.model === "offline"));
  const linked = traj.messages.flatMap((m) => m.llmCallIds ?? []);
  assert.ok(linked.length >= calls.length - 1, "all but the judge call are linked from a message");
  assert.ok(linked.every((id) => calls.some((c) => c.id === id)));
});

test("the simulator-step budget ends the episode with max_sim_steps", async () => {
  const { traj } = await run(task("airline-add-bags"), badPolicy, { maxSimSteps: 2 }, 10);
  assert.equal(traj.endReason, "max_sim_steps");
  assert.equal(traj.status, "truncated");
});
