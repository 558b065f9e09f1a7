/**
 * Simia-RL's GeneralSimulated env as this environment runs it by default: the sample's system prompt and first
 * human message verbatim, one simulator for the user and the tools (fed the reference conversation, Simia's
 * transcript layout and the agent's raw message), "[TERMINATE]" to end, a judge that sees only the system prompt
 * and the conversation, and Simia's score of 0 for an unparsable judgement as an option.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { LlmClient } from "../../llm/client";
import { startFakeLlmServer, type FakeChatRequest } from "../../llm/fake-server/server";
import { runEpisode, type Policy } from "../../rollout/run-episode";
import type { Task } from "../types";
import { createSimulatedEnvironment, TERMINATE_MARKER, type SimulatedEnvConfigInput, type SimulatedTaskData } from "./index";
import { parseSimulatedTaskFile } from "./importer";
import { OFFLINE_FORMAT_ERROR } from "./simia-episode";
import { simiaSample } from "./testing/simia-sample";

const sample = simiaSample;
const [task] = parseSimulatedTaskFile(JSON.stringify([sample]), "apigen.json") as Task<SimulatedTaskData>[];
const CALL = '<tool_call>\n{"name": "get_order", "arguments": {"order_id": "#W100"}}\n</tool_call>';
const policy: Policy = async (_m, { turn }) => ({ text: turn === 0 ? CALL : "It has shipped and arrives Friday." });

test("offline: the sample's system prompt and opening verbatim, one simulator for tool and user, judged 1", async () => {
  const calls: string[] = [];
  const traj = await runEpisode({
    env: createSimulatedEnvironment(),
    task,
    policy,
    ctx: { seed: 0, llm: new LlmClient({}), onLlmCall: (r) => calls.push(r.role) },
    maxTurns: 4,
  });
  assert.equal(traj.messages[0].content, sample.system, "system prompt verbatim (tools block included)");
  assert.equal(traj.messages[1].content, "Where is order #W100?");
  assert.equal(calls[0], "user_simulator", "no LLM call writes the opening: the first call answers the agent");
  const toolReply = traj.messages.find((m) => m.source === "tool_simulator");
  assert.equal(toolReply?.role, "user", "Simia's simulator speaks as the human side, for tools too");
  assert.match(toolReply?.content ?? "", /Friday/);
  assert.equal(traj.endReason, "user_done");
  assert.match(traj.messages.at(-1)?.content ?? "", /\[TERMINATE\]/, "the simulator's closing message is kept as Simia keeps it");
  assert.equal(traj.evaluation?.reward, 1, traj.evaluation?.reasoning ?? "");
});

test("offline: a tool call outside <tool_call> tags gets a format error from the simulator, not a parse by us", async () => {
  const traj = await runEpisode({
    env: createSimulatedEnvironment(),
    task,
    policy: async () => ({ text: '{"name": "get_order", "arguments": {"order_id": ' }),
    ctx: { seed: 0, llm: new LlmClient({}) },
    maxTurns: 2,
  });
  assert.equal(traj.messages.find((m) => m.role === "user" && m.turn === 1)?.content, OFFLINE_FORMAT_ERROR);
});

test("after maxSimSteps agent messages the episode is judged without asking the simulator again", async () => {
  const roles: string[] = [];
  const traj = await runEpisode({
    env: createSimulatedEnvironment({ maxSimSteps: 3 }),
    task,
    policy: async () => ({ text: "Let me check." }),
    ctx: { seed: 0, llm: new LlmClient({}), onLlmCall: (r) => roles.push(r.role) },
    maxTurns: 10,
  });
  assert.equal(traj.endReason, "max_sim_steps");
  assert.deepEqual(roles, ["user_simulator", "user_simulator", "judge"], "two simulator replies, then the judge");
});

/** A stand-in GPT that answers by which of the two Simia-mode prompts it was sent, and records them. */
function simiaGpt(seen: string[], judgeReply: string, params: Record<string, unknown>[] = []) {
  return (req: FakeChatRequest): string => {
    const prompt = req.messages.map((m) => m.content).join("\n");
    seen.push(prompt);
    params.push(req.params);
    if (prompt.startsWith("Score how an agent")) return judgeReply;
    const latest = prompt.split("The agent's latest message:")[1]?.split("How to answer:")[0] ?? "";
    if (latest.includes("<tool_call>")) return '{"status": "shipped", "eta": "Friday"}';
    return `Great, thanks! ${TERMINATE_MARKER}`;
  };
}

async function overHttp(judgeReply: string, config: SimulatedEnvConfigInput = {}, theTask = task) {
  const seen: string[] = [];
  const params: Record<string, unknown>[] = [];
  const server = await startFakeLlmServer({ reply: simiaGpt(seen, judgeReply, params) });
  try {
    const endpoint = { baseUrl: server.url, model: "gpt-fake", params: { temperature: 0 } };
    const llm = new LlmClient({
      endpoints: { user_simulator: endpoint, tool_simulator: endpoint, judge: endpoint },
      retry: { maxAttempts: 1, baseDelayMs: 1 },
    });
    const traj = await runEpisode({
      env: createSimulatedEnvironment({ judge: { maxAttempts: 1 }, ...config }),
      task: theTask,
      policy,
      ctx: { seed: 0, llm },
      maxTurns: 4,
    });
    return { traj, seen, params };
  } finally {
    await server.close();
  }
}

test("over HTTP: the simulator sees system prompt, reference, Simia's transcript and the raw message; the judge sees no expected outcome", async () => {
  const { traj, seen } = await overHttp(JSON.stringify({ reasoning: "Looked the order up and told the user.", reward: 1 }));
  assert.equal(traj.evaluation?.reward, 1);
  const [first, second] = seen;
  assert.match(first, /Verify the user before any change/);
  assert.match(first, /User\/Tool response: Where is order #W100\?\n\nAssistant: <tool_call>/, "the reference, in Simia's layout");
  assert.match(first, /The agent's latest message:\n<tool_call>\n\{"name": "get_order"/);
  assert.match(
    second,
    /The conversation so far:\nUser\/Tool response: Where is order #W100\?\n\nAssistant: <tool_call>[\s\S]*\n\nUser\/Tool response: \{"status": "shipped"/,
  );
  const judgePrompt = seen.at(-1)!;
  assert.match(judgePrompt, /^Score how an agent/);
  assert.match(judgePrompt, /Assistant: It has shipped and arrives Friday\./);
  assert.doesNotMatch(judgePrompt, /expected|"result"/i, "Simia's judge is not shown the expected outcome");
});

test("by default the environment scores as Simia-RL: its parse (an unreadable reply 0), its sampling; the strict judge is opt-in", async () => {
  const simia = await overHttp("I think it went fine.");
  assert.equal(simia.traj.evaluation?.reward, 0);
  assert.match(simia.traj.evaluation?.reasoning ?? "", /^Failed to parse evaluation: I think it went fine\./);
  for (const p of simia.params) {
    assert.equal(p.temperature, 1, "Simia's temperature, not the endpoint's 0");
    assert.equal(p.max_completion_tokens, 60000);
  }
  const strict = await overHttp("I think it went fine.", { judge: { maxAttempts: 1, mode: "strict" } });
  assert.equal(strict.traj.evaluation?.reward, null, "ours: unscored, never a silent 0");
  assert.equal(strict.params[0].temperature, 0, "ours: the endpoint's sampling");
  const zero = await overHttp("I think it went fine.", { judge: { maxAttempts: 1, mode: "strict", unparsable: "zero" } });
  assert.equal(zero.traj.evaluation?.reward, 0);
  assert.match(zero.traj.evaluation?.reasoning ?? "", /could not be parsed \(Simia-RL's rule\)/);
});

test("a sample's empty system prompt stays empty, and the reference is stripped as Python strips it", async () => {
  const odd = {
    ...sample,
    system: "",
    conversations: [
      { from: "human", value: "\u001fWhere is order #W100?\ufeff" },
      { from: "gpt", value: "\u0085\ufeff" },
      ...sample.conversations.slice(1),
    ],
  };
  const [oddTask] = parseSimulatedTaskFile(JSON.stringify([odd]), "odd.json") as Task<SimulatedTaskData>[];
  const { traj, seen } = await overHttp(JSON.stringify({ reasoning: "ok", reward: 1 }), {}, oddTask);
  assert.equal(traj.messages[0].content, "", "Simia sends the sample's empty system prompt as it is");
  // Python's strip() removes U+001F and U+0085 but keeps U+FEFF (JavaScript's trim() does the opposite).
  assert.match(seen[0], /User\/Tool response: Where is order #W100\?\ufeff\n\nAssistant: \ufeff\n\n/);
});

test("offline in Simia's mode: the offline judge's reply is read as Simia reads it, its components kept for the inspector", async () => {
  const traj = await runEpisode({
    env: createSimulatedEnvironment({ judge: { mode: "simia" } }),
    task,
    policy,
    ctx: { seed: 0, llm: new LlmClient({}) },
    maxTurns: 4,
  });
  assert.equal(traj.evaluation?.reward, 1, traj.evaluation?.reasoning);
  assert.ok("calls" in (traj.evaluation?.components ?? {}), JSON.stringify(traj.evaluation?.components));
});
