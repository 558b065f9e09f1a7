import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LlmCallRecord } from "../../lib/conversation";
import { LlmClient, LlmCallError, redactSecrets, redactUrl, type LlmConfigInput } from "./index";
import { startFakeLlmServer, type FakeLlmServerOptions } from "./fake-server/server";

const SECRET = "sk-test-SuperSecretValue0123456789";
/** These tests talk to a fake server on loopback, which the default endpoint policy refuses: allowed as an operator would. */
const LOOPBACK_ALLOWED = { ROLLOUT_LAB_LLM_BASE_URLS: "http://127.0.0.1:" };

async function withServer(
  opts: FakeLlmServerOptions,
  fn: (url: string, stats: { requests: number; maxInFlight: number }) => Promise<void>,
): Promise<void> {
  const server = await startFakeLlmServer(opts);
  try {
    await fn(server.url, server.stats);
  } finally {
    await server.close();
  }
}

function judgeConfig(url: string, extra: Partial<LlmConfigInput> = {}): LlmConfigInput {
  return {
    endpoints: {
      judge: { baseUrl: url, model: "fake-model", apiKeyEnv: "TEST_LLM_API_KEY", params: { temperature: 0, max_tokens: 64, seed: 7 } },
    },
    retry: { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 50, maxRetryAfterMs: 5_000 },
    timeoutMs: 2_000,
    ...extra,
  };
}

const ask = { role: "judge" as const, messages: [{ role: "user" as const, content: "Say hi" }], turn: 2 };

test("a successful call over real HTTP is recorded with tokens, cost, params and a credential-free endpoint", async () => {
  await withServer({ reply: () => "hello there" }, async (url) => {
    const records: LlmCallRecord[] = [];
    const client = new LlmClient(judgeConfig(url, { prices: { "fake-model": { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 } } }), {
      env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED },
      onCall: (r) => records.push(r),
    });
    const res = await client.chat(ask);
    assert.equal(res.text, "hello there");
    assert.equal(records.length, 1);
    const r = records[0];
    assert.equal(r.id, res.callId);
    assert.equal(r.role, "judge");
    assert.equal(r.model, "fake-model");
    assert.equal(r.endpoint, url);
    assert.equal(r.attempt, 1);
    assert.equal(r.turn, 2);
    assert.equal(r.cached, false);
    assert.deepEqual(r.request.params, { temperature: 0, max_tokens: 64, seed: 7 });
    assert.ok(r.promptTokens > 0 && r.completionTokens > 0);
    assert.equal(r.costUsd, r.promptTokens * 1 + r.completionTokens * 2);
    assert.ok(!JSON.stringify(r).includes(SECRET));
  });
});

test("429 with retry-after-ms is retried after the requested wait, each attempt recorded", async () => {
  await withServer({ faults: { script: ["rate_limit", "rate_limit", null], retryAfterMs: 150 } }, async (url, stats) => {
    const records: LlmCallRecord[] = [];
    const client = new LlmClient(judgeConfig(url), { env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED } });
    const t0 = performance.now();
    const res = await client.chat(ask, { onCall: (r) => records.push(r) });
    const elapsed = performance.now() - t0;
    assert.ok(res.text.length > 0);
    assert.equal(stats.requests, 3);
    assert.deepEqual(
      records.map((r) => r.attempt),
      [1, 2, 3],
    );
    assert.match(records[0].error ?? "", /429/);
    assert.equal(records[0].response, null);
    assert.equal(records[2].error, null);
    assert.ok(elapsed >= 290, `waited ${elapsed} ms, expected >= 2 x 150 ms`);
  });
});

test("429 with a retry-after seconds header (no -ms) waits that long before the retry", async () => {
  await withServer({ faults: { script: ["rate_limit", null], retryAfter: "0.4" } }, async (url) => {
    const records: LlmCallRecord[] = [];
    const client = new LlmClient(judgeConfig(url), {
      env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED },
      onCall: (r) => records.push(r),
    });
    await client.chat(ask);
    const gap = Date.parse(records[1].startedAt) - Date.parse(records[0].startedAt) - records[0].latencyMs;
    assert.ok(gap >= 390, `waited ${gap} ms after the 429, expected >= 400`);
  });
});

test("500 and a body cut mid-stream are retried; non-retryable 401 is not", async () => {
  await withServer({ faults: { script: ["server_error", "cut_body", null] } }, async (url) => {
    const records: LlmCallRecord[] = [];
    const client = new LlmClient(judgeConfig(url), {
      env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED },
      onCall: (r) => records.push(r),
    });
    await client.chat(ask);
    assert.equal(records.length, 3);
    assert.match(records[0].error ?? "", /500/);
    assert.ok(records[1].error);
  });
  await withServer({ faults: { script: ["unauthorized_echo"] } }, async (url, stats) => {
    const client = new LlmClient(judgeConfig(url), { env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED } });
    await assert.rejects(client.chat(ask), (e: unknown) => e instanceof LlmCallError && e.status === 401 && e.attempts === 1);
    assert.equal(stats.requests, 1);
  });
});

test("a hung request times out, is recorded as such, and the retry succeeds", async () => {
  await withServer({ faults: { script: ["hang", null] } }, async (url) => {
    const records: LlmCallRecord[] = [];
    const client = new LlmClient(judgeConfig(url, { timeoutMs: 300 }), {
      env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED },
      onCall: (r) => records.push(r),
    });
    const res = await client.chat(ask);
    assert.ok(res.text.length > 0);
    assert.equal(records.length, 2);
    assert.match(records[0].error ?? "", /timed out|timeout/i);
    assert.ok(records[0].latencyMs >= 280);
  });
});

test("the API key never appears in records, logs or errors, even when the server echoes it", async () => {
  await withServer({ faults: { script: ["unauthorized_echo", "unauthorized_echo"] } }, async (url) => {
    const records: LlmCallRecord[] = [];
    const logs: string[] = [];
    const client = new LlmClient(judgeConfig(url), {
      env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED },
      onCall: (r) => records.push(r),
      log: (l) => logs.push(l),
    });
    let caught: unknown;
    try {
      await client.chat(ask);
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof LlmCallError);
    const everything = JSON.stringify({ records, logs, message: caught.message, stack: caught.stack, config: client.config });
    assert.ok(records.length >= 1);
    assert.match(records[0].error ?? "", /Incorrect API key provided/, "the useful part of the message survives");
    assert.ok(!everything.includes(SECRET), "secret leaked");
    assert.ok(!everything.includes("SuperSecret"), "part of the secret leaked");
  });
});

test("recorded endpoints drop userinfo and query-string keys; generic key patterns are scrubbed", () => {
  assert.equal(redactUrl(`https://user:${SECRET}@example.com/openai/v1?api-key=${SECRET}`), "https://example.com/openai/v1");
  assert.equal(
    redactSecrets("Authorization: Bearer abcdefghijklmnop and api_key=zzzzzzzzzzzz", []),
    "Authorization: [REDACTED] and api_key=[REDACTED]",
  );
});

test("a missing key variable is a clear config error and apiKeyEnv must be a variable name", () => {
  assert.throws(() => new LlmClient(judgeConfig("http://127.0.0.1:1/v1"), { env: { ...LOOPBACK_ALLOWED } }), /TEST_LLM_API_KEY .*not set/);
  assert.throws(
    () => new LlmClient({ endpoints: { judge: { baseUrl: "http://x/v1", model: "m", apiKeyEnv: SECRET } } }),
    /NAME of an environment variable/,
  );
});

test("identical requests hit the cache (memory and directory), recorded with cached: true", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "llm-cache-"));
  try {
    await withServer({ reply: (r) => `echo ${r.messages.length}` }, async (url, stats) => {
      const records: LlmCallRecord[] = [];
      const mem = new LlmClient(judgeConfig(url, { cache: { mode: "memory" } }), {
        env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED },
        onCall: (r) => records.push(r),
      });
      const a = await mem.chat(ask);
      const b = await mem.chat(ask);
      assert.equal(a.text, b.text);
      assert.deepEqual(
        records.map((r) => r.cached),
        [false, true],
      );
      assert.equal(records[1].costUsd, 0);
      assert.equal(stats.requests, 1);
      await mem.chat({ ...ask, messages: [{ role: "user", content: "different" }] });
      assert.equal(stats.requests, 2, "a different prompt is a miss");

      const first = new LlmClient(judgeConfig(url, { cache: { mode: "dir", dir } }), {
        env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED },
      });
      await first.chat(ask);
      const replayRecords: LlmCallRecord[] = [];
      const replay = new LlmClient(judgeConfig(url, { cache: { mode: "dir", dir } }), {
        env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED },
        onCall: (r) => replayRecords.push(r),
      });
      const again = await replay.chat(ask);
      assert.equal(again.text, a.text);
      assert.equal(replayRecords[0].cached, true);
      assert.equal(stats.requests, 3, "the replaying client made no request");
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a reply cut by max_tokens is returned with finish reason length and is not cached", async () => {
  await withServer(
    { reply: () => "a fairly long answer that will be cut", faults: { script: ["truncated_length"] } },
    async (url, stats) => {
      const records: LlmCallRecord[] = [];
      const client = new LlmClient(judgeConfig(url, { cache: { mode: "memory" } }), {
        env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED },
        onCall: (r) => records.push(r),
      });
      const cut = await client.chat(ask);
      assert.ok(cut.text.length < "a fairly long answer that will be cut".length);
      assert.equal(records[0].response?.finishReason, "length");
      await client.chat(ask);
      assert.equal(stats.requests, 2);
    },
  );
});

test("roles without an endpoint use the offline provider, recorded as model offline", async () => {
  const records: LlmCallRecord[] = [];
  const client = new LlmClient({}, { onCall: (r) => records.push(r) });
  const res = await client.chat({
    role: "user_simulator",
    messages: [{ role: "system", content: "play the user" }],
    offline: () => "I want a refund.",
    turn: 0,
  });
  assert.equal(res.text, "I want a refund.");
  assert.equal(records[0].model, "offline");
  assert.equal(records[0].endpoint, "offline");
  assert.equal(records[0].role, "user_simulator");
  assert.ok(records[0].completionTokens > 0);
  await assert.rejects(client.chat({ role: "judge", messages: [] }), /llm\.endpoints\.judge/);
});

test("the shared concurrency cap bounds in-flight requests", async () => {
  await withServer({ latencyMs: 60 }, async (url, stats) => {
    const client = new LlmClient({ ...judgeConfig(url), concurrency: 2 }, { env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED } });
    await Promise.all(Array.from({ length: 6 }, (_, i) => client.chat({ ...ask, messages: [{ role: "user", content: `q${i}` }] })));
    assert.equal(stats.requests, 6);
    assert.equal(stats.maxInFlight, 2);
  });
});

test("an endpoint's own timeoutMs bounds each attempt of a hanging server (not the client-wide 60 s)", async () => {
  await withServer({ faults: { script: ["hang", "hang"] } }, async (url) => {
    const records: LlmCallRecord[] = [];
    const config = judgeConfig(url, { timeoutMs: 60_000, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 } });
    config.endpoints!.judge!.timeoutMs = 300;
    const client = new LlmClient(config, { env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED }, onCall: (r) => records.push(r) });
    const t0 = performance.now();
    await assert.rejects(client.chat(ask), LlmCallError);
    // Both attempts timed out at the endpoint's 300 ms; with the ignored setting they would have waited 60 s each.
    assert.ok(performance.now() - t0 < 20_000);
    assert.deepEqual(
      records.map((r) => /timed out/i.test(r.error ?? "")),
      [true, true],
    );
  });
});

test("an HTTP 200 that the caller cannot use, or that was cut at max_tokens, is recorded as a failed call", async () => {
  await withServer({ faults: { script: ["malformed_json", "truncated_length"] } }, async (url) => {
    const records: LlmCallRecord[] = [];
    const client = new LlmClient(judgeConfig(url), {
      env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED },
      onCall: (r) => records.push(r),
    });
    const invalid = await client.chat({
      ...ask,
      validate: (t) => (t.trim().startsWith("{") && t.trim().endsWith("}") ? null : "not a JSON object"),
    });
    assert.equal(records[0].id, invalid.callId);
    assert.equal(records[0].error, "not a JSON object");
    await client.chat(ask);
    assert.equal(records[1].error, 'reply truncated at max_tokens (finish_reason "length")');
    await client.chat({ ...ask, messages: [{ role: "user", content: "again" }] });
    assert.equal(records[2].error, null, "a normal reply stays clean");
  });
});

test("sampling parameters a request asks for replace the endpoint's, a token cap under either name", async () => {
  const sent: Record<string, unknown>[] = [];
  await withServer(
    {
      reply: (req) => {
        sent.push(req.params);
        return "ok";
      },
    },
    async (url) => {
      const client = new LlmClient(
        { ...judgeConfig(url), retry: { maxAttempts: 1, baseDelayMs: 1 } },
        { env: { TEST_LLM_API_KEY: SECRET, ...LOOPBACK_ALLOWED } },
      );
      await client.chat({ role: "judge", messages: [{ role: "user", content: "a" }] });
      const asked = await client.chat({
        role: "judge",
        messages: [{ role: "user", content: "b" }],
        params: { temperature: 1, max_completion_tokens: 60000 },
      });
      assert.equal(asked.text, "ok");
    },
  );
  assert.equal(sent[0].temperature, 0);
  assert.equal(sent[0].max_tokens, 64);
  assert.equal(sent[1].temperature, 1);
  assert.equal(sent[1].max_completion_tokens, 60000);
  assert.equal(sent[1].max_tokens, undefined, "never both caps: APIs refuse them together");
  assert.equal(sent[1].seed, 7, "the endpoint's other params stay");
});
