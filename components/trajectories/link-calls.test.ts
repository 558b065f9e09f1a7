import { test } from "node:test";
import assert from "node:assert/strict";
import type { ConversationMessage, LlmCallRecord } from "@/lib/conversation";
import { linkCallsToMessages, summarizeCalls } from "./link-calls";

const call = (id: string, role: LlmCallRecord["role"], turn: number | null, extra: Partial<LlmCallRecord> = {}): LlmCallRecord => ({
  id,
  role,
  turn,
  model: "m",
  endpoint: "offline",
  request: { messages: [], params: {} },
  response: { text: "x" },
  latencyMs: 100,
  promptTokens: 10,
  completionTokens: 5,
  costUsd: 0.001,
  attempt: 1,
  error: null,
  cached: false,
  startedAt: "2026-01-01T00:00:00.000Z",
  ...extra,
});

test("calls attach by llmCallIds first, then by role and turn, and the judge stays unattached", () => {
  const messages: ConversationMessage[] = [
    { role: "system", source: "system", turn: 0, content: "s" },
    { role: "user", source: "user_simulator", turn: 0, content: "hi", llmCallIds: ["u0"] },
    { role: "assistant", source: "policy", turn: 0, content: "calling" },
    { role: "tool", source: "tool_simulator", turn: 0, content: "{}" },
    { role: "user", source: "user_simulator", turn: 1, content: "bye" },
  ];
  const calls = [
    call("u0", "user_simulator", 0),
    call("t0", "tool_simulator", 0),
    call("u1a", "user_simulator", 1, { error: "timeout" }),
    call("u1b", "user_simulator", 1, { attempt: 2 }),
    call("j", "judge", 1),
  ];
  const { perMessage, unattached } = linkCallsToMessages(messages, calls);
  assert.deepEqual(
    perMessage.map((cs) => cs.map((c) => c.id)),
    [[], ["u0"], [], ["t0"], ["u1a", "u1b"]],
  );
  assert.deepEqual(
    unattached.map((c) => c.id),
    ["j"],
  );
});

test("an unknown id on a message is ignored rather than breaking the view", () => {
  const { perMessage } = linkCallsToMessages([{ role: "user", source: "user_simulator", turn: 0, content: "", llmCallIds: ["gone"] }], []);
  assert.deepEqual(perMessage, [[]]);
});

test("call totals count failures and retries", () => {
  const s = summarizeCalls([call("a", "judge", 0, { error: "bad json" }), call("b", "judge", 0, { attempt: 2 })]);
  assert.deepEqual(
    { ...s, costUsd: Number(s.costUsd.toFixed(3)) },
    { count: 2, failed: 1, retries: 1, latencyMs: 200, tokens: 30, costUsd: 0.002 },
  );
});
