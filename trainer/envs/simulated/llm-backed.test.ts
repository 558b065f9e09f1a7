import { test } from "node:test";
import assert from "node:assert/strict";
import { LlmClient } from "../../llm/client";
import { startFakeLlmServer, type FakeChatRequest } from "../../llm/fake-server/server";
import { runEpisode, type Policy } from "../../rollout/run-episode";
import { createSimulatedEnvironment, TERMINATE_MARKER } from "./index";

/** A rule-based stand-in for GPT that recognises which role's default prompt it was sent. */
function scriptedGpt(req: FakeChatRequest): string {
  const prompt = req.messages.map((m) => m.content).join("\n");
  if (prompt.startsWith("You are judging"))
    return JSON.stringify({ reasoning: "Flight changed to RL204 and the user was told.", reward: 1, components: { calls: 1, facts: 1 } });
  if (prompt.startsWith("You are simulating the backend tools")) return JSON.stringify({ status: "changed", flight: "RL204" });
  if (/Agent: .*RL204/.test(prompt)) return `Perfect, thank you! ${TERMINATE_MARKER}`;
  if (/has not started/.test(prompt)) return "Hi, I need an earlier flight please.";
  return "My booking code is ZK41P.";
}

const policy: Policy = async (_m, { turn }) => ({
  text:
    turn === 0
      ? "What is your booking code?"
      : turn === 1
        ? '<tool_call>{"name": "change_flight", "arguments": {"booking_code": "ZK41P", "new_flight": "RL204"}}</tool_call>'
        : "You are now on RL204.",
});

async function episodeAgainst(faultScript: ("malformed_json" | null)[] = []) {
  const server = await startFakeLlmServer({ reply: scriptedGpt, faults: { script: faultScript } });
  try {
    const endpoint = { baseUrl: server.url, model: "gpt-fake", params: { temperature: 0 } };
    const client = new LlmClient({
      endpoints: { user_simulator: endpoint, tool_simulator: endpoint, judge: endpoint },
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });
    const env = createSimulatedEnvironment({ simulator: "split", judge: { maxAttempts: 2 } });
    const task = env.builtinTasks().find((t) => t.id === "airline-change-earlier")!;
    return await runEpisode({ env, task, policy, ctx: { seed: 0, llm: client }, maxTurns: 6 });
  } finally {
    await server.close();
  }
}

test("with every role on an LLM endpoint, the episode runs over HTTP and ends on the user's [TERMINATE]", async () => {
  const traj = await episodeAgainst();
  assert.equal(traj.endReason, "user_done");
  assert.equal(traj.evaluation?.reward, 1);
  assert.equal(traj.messages[1].content, "Hi, I need an earlier flight please.");
  assert.ok(!traj.messages.some((m) => m.content.includes(TERMINATE_MARKER)), "the marker is stripped from what the policy sees");
  const tool = traj.messages.find((m) => m.role === "tool");
  assert.equal(tool?.source, "tool_simulator");
  assert.match(tool?.content ?? "", /RL204/);
  assert.deepEqual([...new Set(traj.llmCalls.map((c) => c.model))], ["gpt-fake"]);
  assert.ok(traj.llmCalls.every((c) => c.endpoint.startsWith("http://127.0.0.1:")));
});

test("a judge that returns malformed JSON twice leaves the episode unscored, not failed", async () => {
  // Calls: opening, 2 user replies, 1 tool = 4 good ones, then both judge attempts are malformed.
  const traj = await episodeAgainst([null, null, null, null, "malformed_json", "malformed_json"]);
  assert.equal(traj.status, "unscored");
  assert.equal(traj.evaluation?.reward, null);
  assert.equal(traj.llmCalls.filter((c) => c.role === "judge").length, 2);
});
