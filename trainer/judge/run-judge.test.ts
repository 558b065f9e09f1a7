import { test } from "node:test";
import assert from "node:assert/strict";
import type { LlmCallRecord } from "../../lib/conversation";
import { LlmClient } from "../llm/client";
import { startFakeLlmServer, type FakeLlmServerOptions } from "../llm/fake-server/server";
import { createOfflineLlm } from "../llm/offline-provider";
import { parseJudgeReply, runJudge } from "./index";

const rubric = [
  { role: "system" as const, content: "You are a strict judge." },
  { role: "user" as const, content: 'Transcript: ... Reply with {"reasoning": "...", "reward": 0 or 1}.' },
];

async function judgeClient(opts: FakeLlmServerOptions, records: LlmCallRecord[]) {
  const server = await startFakeLlmServer(opts);
  const client = new LlmClient({
    endpoints: { judge: { baseUrl: server.url, model: "judge-model" } },
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
  });
  return { server, llm: client.bind((r) => records.push(r)) };
}

test("judge replies are accepted as JSON, fenced JSON or JSON inside prose; reward or score", () => {
  const a = parseJudgeReply('{"reasoning": "ok", "reward": 1}');
  assert.deepEqual(a.ok && a.verdict, { reward: 1, reasoning: "ok", components: {} });
  const b = parseJudgeReply('Here:\n```json\n{"score": 0.5, "reasoning": "half", "components": {"calls": 0.5}}\n```');
  assert.equal(b.ok && b.verdict.reward, 0.5);
  const c = parseJudgeReply('<think>hmm</think> Verdict: {"reward": "0", "reasoning": "missed the refund"} done');
  assert.equal(c.ok && c.verdict.reward, 0);
  const bad = parseJudgeReply('{"reward": 3, "reasoning": "x"}');
  assert.equal(bad.ok, false);
  assert.equal(parseJudgeReply('{"reasoning": "no reward"}').ok, false);
});

test("a malformed judge reply over HTTP is retried with feedback and then scored", async () => {
  const records: LlmCallRecord[] = [];
  const { server, llm } = await judgeClient({ faults: { script: ["malformed_json", null] } }, records);
  try {
    const result = await runJudge({ llm, messages: rubric, turn: 4 });
    assert.equal(result.reward, 1);
    assert.equal(result.callIds.length, 2);
    assert.equal(records.length, 2);
    assert.equal(records[1].request.messages.length, 4, "the retry carries the bad reply and the parse error");
    assert.match(records[1].request.messages[3].content, /could not be used/);
    assert.equal(result.samples[0].failures.length, 1);
  } finally {
    await server.close();
  }
});

test("a judge that keeps failing to parse leaves the episode unscored (null, not 0)", async () => {
  const records: LlmCallRecord[] = [];
  const { server, llm } = await judgeClient({ reply: () => "I think it went fine!" }, records);
  try {
    const result = await runJudge({ llm, messages: rubric, maxAttempts: 3 });
    assert.equal(result.reward, null);
    assert.match(result.reasoning, /Unscored/);
    assert.equal(records.length, 3, "every attempt is recorded");
  } finally {
    await server.close();
  }
});

test("a judge endpoint that is down also yields null, with the failure in the reasoning", async () => {
  const records: LlmCallRecord[] = [];
  const { server, llm } = await judgeClient({ faults: { rate: 1, kinds: ["server_error"] } }, records);
  try {
    const result = await runJudge({ llm, messages: rubric });
    assert.equal(result.reward, null);
    assert.match(result.reasoning, /judge call failed/);
    assert.equal(records.length, 2, "the client's two transport attempts are recorded");
  } finally {
    await server.close();
  }
});

test("k samples are aggregated and their agreement reported", async () => {
  let n = 0;
  const rewards = [1, 0, 1];
  const records: LlmCallRecord[] = [];
  const { server, llm } = await judgeClient({ reply: () => JSON.stringify({ reward: rewards[n++ % 3], reasoning: `r${n}` }) }, records);
  try {
    const mean = await runJudge({ llm, messages: rubric, samples: 3 });
    assert.ok(Math.abs((mean.reward ?? -1) - 2 / 3) < 1e-9);
    assert.ok(Math.abs((mean.agreement ?? 0) - 2 / 3) < 1e-9);
    assert.equal(mean.samples.length, 3);
    const majority = await runJudge({ llm, messages: rubric, samples: 3, aggregate: "majority" });
    assert.equal(majority.reward, 1);
  } finally {
    await server.close();
  }
});

test("the offline judge goes through the same parse path and is recorded", async () => {
  const records: LlmCallRecord[] = [];
  const llm = createOfflineLlm((r) => records.push(r));
  const result = await runJudge({
    llm,
    messages: rubric,
    offline: () => JSON.stringify({ reward: 0, reasoning: "No refund issued.", components: { calls: 0 } }),
  });
  assert.equal(result.reward, 0);
  assert.deepEqual(result.components, { calls: 0 });
  assert.equal(records[0].model, "offline");
  assert.equal(records[0].role, "judge");
});
