import { test } from "node:test";
import assert from "node:assert/strict";
import type { LlmCallRecord } from "../../lib/conversation";
import { summariseLlmCalls } from "./metrics";

const rec = (over: Partial<LlmCallRecord>): LlmCallRecord => ({
  id: "x",
  role: "judge",
  model: "m",
  endpoint: "http://h/v1",
  request: { messages: [], params: {} },
  response: { text: "" },
  latencyMs: 100,
  promptTokens: 10,
  completionTokens: 2,
  costUsd: 0.001,
  attempt: 1,
  error: null,
  cached: false,
  turn: 0,
  startedAt: "2025-01-01T00:00:00Z",
  ...over,
});

test("LLM metrics count calls, errors, retries and cost; latency percentiles ignore cached and offline calls", () => {
  const m = summariseLlmCalls([
    rec({ latencyMs: 100 }),
    rec({ latencyMs: 300, attempt: 2, error: "500" }),
    rec({ latencyMs: 0, cached: true }),
    rec({ latencyMs: 1, endpoint: "offline", role: "user_simulator" }),
    rec({ latencyMs: 200 }),
  ]);
  assert.equal(m["llm/calls"], 5);
  assert.equal(m["llm/errors"], 1);
  assert.equal(m["llm/retries"], 1);
  assert.equal(m["llm/cached"], 1);
  assert.equal(m["llm/latency_p50_ms"], 200);
  assert.equal(m["llm/latency_p95_ms"], 300);
  assert.ok(Math.abs(m["llm/cost_usd"] - 0.005) < 1e-12);
  assert.equal(m["llm/calls_user_simulator"], 1);
  assert.equal(summariseLlmCalls([])["llm/latency_p50_ms"], undefined, "no data is a gap, not 0");
});
