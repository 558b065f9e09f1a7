import { test } from "node:test";
import assert from "node:assert/strict";
import type { ConversationMessage, LlmCallRecord } from "./conversation";
import { simiaTimestamp, toSimiaRecord } from "./simia-record";

const call = (over: Partial<LlmCallRecord>): LlmCallRecord => ({
  id: "c",
  role: "user_simulator",
  model: "gpt-5",
  endpoint: "https://example.invalid/v1",
  request: { messages: [{ role: "user", content: "simulate the user" }], params: { temperature: 0.7, max_tokens: 256 } },
  response: { text: "Hi" },
  latencyMs: 12,
  promptTokens: 5,
  completionTokens: 1,
  costUsd: 0,
  attempt: 1,
  error: null,
  cached: false,
  turn: 0,
  startedAt: "2025-01-01T00:00:00.000Z",
  ...over,
});

const messages: ConversationMessage[] = [
  { role: "system", source: "system", content: "You are an airline agent.", turn: 0 },
  { role: "user", source: "user_simulator", content: "Change my flight.", turn: 0 },
  { role: "assistant", source: "policy", content: '<tool_call>{"name":"find_reservation","arguments":{}}</tool_call>', turn: 0 },
  { role: "tool", source: "tool_simulator", content: '{"flight":"RL1"}', turn: 1, name: "find_reservation" },
  { role: "assistant", source: "policy", content: "Done, you are on RL1.", turn: 1 },
  { role: "user", source: "user_simulator", content: "Thanks!", turn: 2 },
];

test("a trajectory exports in Simia-RL's record shape", () => {
  const rec = toSimiaRecord({
    messages,
    evaluation: { reward: 1, reasoning: "All expected calls made." },
    endReason: "user_done",
    maxSteps: 10,
    sampleIndex: 3,
    llmCalls: [
      call({ id: "a" }),
      call({
        id: "b",
        role: "judge",
        turn: 2,
        startedAt: "2025-01-01T00:00:05.000Z",
        request: {
          messages: [
            { role: "system", content: "judge" },
            { role: "user", content: "score" },
          ],
          params: {},
        },
        response: { text: '{"reward":1}' },
      }),
    ],
  });
  assert.equal(rec.reward, 1);
  assert.equal(rec.reasoning, "All expected calls made.");
  assert.equal(rec.termination_reason, "gpt_decision");
  assert.equal(rec.system_prompt, "You are an airline agent.");
  assert.equal(rec.num_steps, 2);
  assert.equal(rec.sample_index, 3);
  assert.deepEqual(
    rec.conversation_history.map((t) => t.role),
    ["human", "assistant", "human", "assistant", "human"],
  );
  assert.deepEqual(rec.gpt_call_history[0], {
    timestamp: "2025-01-01T00:00:00",
    prompt: "simulate the user",
    response: "Hi",
    metadata: {
      step: 1,
      type: "environment_response",
      agent_message: '<tool_call>{"name":"find_reservation","arguments":{}}</tool_call>',
    },
    deployment: "gpt-5",
    temperature: 0.7,
    max_tokens: 256,
  });
  assert.deepEqual(rec.gpt_call_history[1].metadata, { step: 2, type: "final_evaluation" }, "the judge's step: every agent message");
  assert.equal(rec.gpt_call_history[1].prompt, "system: judge\n\nuser: score");
  assert.equal(rec.gpt_call_history[1].temperature, null);
  assert.equal(rec.timestamp, "2025-01-01T00:00:05", "Python's utcnow().isoformat(): no zone, no zero fraction");
  assert.doesNotThrow(() => JSON.parse(JSON.stringify(rec)));
  assert.deepEqual(rec.reference_conversations, []);
  assert.equal(rec.config, null);
});

test("the record is filled field by field as Simia's _save_trajectory_record fills it", () => {
  const reference = [
    { from: "human", value: "I need to change my flight." },
    { from: "gpt", value: "Sure, what is your booking?" },
  ];
  const config = {
    deployment: "gpt-4o",
    temperature: 0.7,
    max_tokens: 1024,
    azure_endpoint: "https://llm.example/v1",
  };
  const rec = toSimiaRecord({
    messages,
    evaluation: { reward: 0, reasoning: "no" },
    endReason: "max_turns",
    llmCalls: [],
    envId: 13,
    sampleIndex: 42,
    episodeCount: 7,
    maxSteps: 10,
    systemPrompt: "The sample's own system prompt.",
    referenceConversations: reference,
    config,
  });
  assert.deepEqual(
    Object.keys(rec),
    [
      "env_id",
      "sample_index",
      "episode_count",
      "timestamp",
      "reward",
      "reasoning",
      "num_steps",
      "max_steps",
      "termination_reason",
      "system_prompt",
      "reference_conversations",
      "conversation_history",
      "gpt_call_history",
      "config",
    ],
    "Simia's keys, in Simia's order",
  );
  assert.deepEqual([rec.env_id, rec.sample_index, rec.episode_count, rec.max_steps], [13, 42, 7, 10]);
  assert.equal(rec.system_prompt, "The sample's own system prompt.");
  assert.deepEqual(rec.reference_conversations, reference);
  assert.deepEqual(rec.config, config);
});

test("unscored and failed episodes keep null reward and map limits to max_steps", () => {
  const unscored = toSimiaRecord({
    messages,
    evaluation: { reward: null, reasoning: "Unscored: judge failed" },
    endReason: "max_turns",
    llmCalls: [
      call({ response: null, error: "500" }),
      call({ id: "ok" }),
      call({ id: "j", role: "judge", response: { text: "<think>hm</think>\n\n It went fine. " }, error: "unparseable judge reply" }),
    ],
  });
  assert.equal(unscored.reward, null, "never coerced to 0");
  assert.equal(unscored.termination_reason, "max_steps");
  assert.deepEqual(
    unscored.gpt_call_history.map((c) => c.response),
    ["Hi", "It went fine."],
    "every call that produced a reply, a judge reply that did not parse included, after </think> and stripped as Simia keeps it",
  );
  const failed = toSimiaRecord({ messages: [], evaluation: null, endReason: "error", llmCalls: [] });
  assert.equal(failed.reward, null);
  assert.equal(failed.termination_reason, "error");
  assert.deepEqual(failed.conversation_history, []);
});

test("times are written as Python's datetime.utcnow().isoformat() writes them", () => {
  assert.equal(simiaTimestamp("2025-03-04T05:06:07.250Z"), "2025-03-04T05:06:07.250000");
  assert.equal(simiaTimestamp("2025-03-04T05:06:07.001Z"), "2025-03-04T05:06:07.001000");
  assert.equal(simiaTimestamp("2025-03-04T05:06:07.000Z"), "2025-03-04T05:06:07", "a zero fraction is left out");
  assert.equal(simiaTimestamp("2025-03-04T07:06:07.5+02:00"), "2025-03-04T05:06:07.500000", "in UTC");
});
