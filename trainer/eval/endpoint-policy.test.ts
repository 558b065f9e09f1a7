/** The conversation as the chat API must see it: every tool_call answered right after it, anything else as text. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ConversationMessage } from "../../lib/conversation";
import { toWireMessages } from "./endpoint-policy";

const m = (x: Partial<ConversationMessage> & Pick<ConversationMessage, "role" | "source" | "content">): ConversationMessage => ({
  turn: 0,
  ...x,
});

test("answered calls become tool_calls with their tool results by id; unanswered ones and stray results become text", () => {
  const wire = toWireMessages([
    m({ role: "system", source: "system", content: "policy" }),
    m({ role: "user", source: "user_simulator", content: "hi" }),
    m({
      role: "assistant",
      source: "policy",
      content: "",
      toolCalls: [
        { id: "a", name: "f", arguments: { x: 1 } },
        { id: "b", name: "g", arguments: {} },
      ],
    }),
    m({ role: "tool", source: "tool", content: "1", toolCallId: "a", name: "f" }),
    m({ role: "tool", source: "tool", content: "orphan", name: "h" }),
  ]);
  assert.deepEqual(wire[2], {
    role: "assistant",
    content: '<tool_call>\n{"name":"g","arguments":{}}\n</tool_call>',
    tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: '{"x":1}' } }],
  });
  assert.deepEqual(wire[3], { role: "tool", tool_call_id: "a", content: "1" });
  assert.deepEqual(wire[4], { role: "user", content: "[h result] orphan" });
});

test("a refused call is shown back to the model as what it sent, beside the format error; an empty reply is named", () => {
  const sent = new Map([[0, { text: "", toolCalls: [{ id: "x", name: "f", arguments: '{"a": ' }] }]]);
  const wire = toWireMessages(
    [
      m({ role: "user", source: "environment", content: "Guess" }),
      m({ role: "assistant", source: "policy", content: "" }),
      m({ role: "user", source: "environment", content: "Format error (bad_arguments)", turn: 1 }),
      m({ role: "assistant", source: "policy", content: "", turn: 1 }),
    ],
    sent,
  );
  assert.match(wire[1].content ?? "", /<tool_call>[\s\S]*"f"[\s\S]*"\{\\"a\\": "/);
  assert.equal(wire[3].content, "(empty reply)");
});
