import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadDemonstrationsJsonl, parseDemonstrationsJsonl } from "./demonstrations-jsonl";
import { DatasetError } from "./types";

const line = (v: unknown) => JSON.stringify(v);
const good = line({
  messages: [
    { role: "system", content: "You are a helpful agent." },
    { role: "user", content: "What is 2+2?" },
    { role: "assistant", content: "4" },
  ],
});

test("a good file: one demonstration per non-blank line, roles and contents kept", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rl-demos-"));
  const file = path.join(dir, "demos.jsonl");
  const second = line({
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "hi " },
          { type: "text", text: "there" },
        ],
      },
      { role: "assistant", content: "hello" },
    ],
    tools: [],
  });
  writeFileSync(file, `${good}\n\n${second}\r\n`);
  const demos = await loadDemonstrationsJsonl(file);
  assert.equal(demos.length, 2);
  assert.deepEqual(
    demos[0].messages.map((m) => m.role),
    ["system", "user", "assistant"],
  );
  assert.equal(demos[0].messages[2].content, "4");
  assert.equal(demos[1].messages[0].content, "hi there", "text parts are joined");
});

test("OpenAI tool_calls become Hermes <tool_call> blocks; weight 0 keeps an assistant turn as context", () => {
  const [d] = parseDemonstrationsJsonl(
    line({
      messages: [
        { role: "user", content: "Weather in Paris?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
          weight: 0,
        },
        { role: "tool", content: '{"temp": 21}' },
        { role: "assistant", content: "It is 21 degrees." },
      ],
    }),
    "x.jsonl",
  );
  assert.equal(d.messages[1].content, '<tool_call>\n{"name":"get_weather","arguments":{"city":"Paris"}}\n</tool_call>');
  assert.equal(d.messages[1].train, false);
  assert.equal(d.messages[3].train, undefined);
});

function errorOf(text: string): DatasetError {
  try {
    parseDemonstrationsJsonl(text, "/data/demos.jsonl");
  } catch (e) {
    assert.ok(e instanceof DatasetError, String(e));
    return e;
  }
  assert.fail("expected a DatasetError");
}

test("a bad JSON line fails naming the file and the line number", () => {
  const e = errorOf(`${good}\n${good}\n{"messages": [ oops\n`);
  assert.match(e.message, /^\/data\/demos\.jsonl \(line 3\): not valid JSON/);
  assert.equal(e.record, 3);
});

test("missing messages, a bad role, a bad content and no assistant turn are each named", () => {
  assert.match(errorOf(line({ conversation: [] })).message, /\(line 1\): missing a non-empty "messages" array/);
  assert.match(errorOf(`${good}\n${line({ messages: [] })}`).message, /\(line 2\): missing a non-empty "messages" array/);
  assert.match(
    errorOf(line({ messages: [{ role: "bot", content: "x" }] })).message,
    /\(line 1\): message 0: role "bot" is not one of system, user, assistant, tool/,
  );
  assert.match(errorOf(line({ messages: [{ role: "user", content: 5 }] })).message, /message 0: content must be a string/);
  assert.match(
    errorOf(
      line({
        messages: [
          { role: "user", content: "hi" },
          { role: "user", content: "anyone?" },
        ],
      }),
    ).message,
    /\(line 1\): no assistant message to learn from/,
  );
  assert.match(
    errorOf(
      line({
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "x", weight: 0 },
        ],
      }),
    ).message,
    /no assistant message to learn from/,
    "an assistant turn with weight 0 teaches nothing",
  );
});

test("an empty or unreadable file fails with the file name", async () => {
  assert.match(errorOf("\n\n").message, /^\/data\/demos\.jsonl: no demonstrations/);
  await assert.rejects(
    loadDemonstrationsJsonl("/nonexistent/demos.jsonl"),
    /\/nonexistent\/demos\.jsonl: cannot read the demonstrations file/,
  );
});
