import { test } from "node:test";
import assert from "node:assert/strict";
import { parsePolicyAction, formatToolCallText, formatToolsPrompt, formatErrorObservation, type PolicyAction } from "./index";

function action(text: string): PolicyAction {
  const r = parsePolicyAction(text);
  if (!r.ok) assert.fail(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.action;
}

test("Hermes/Qwen <tool_call> tags yield calls with ids, prose kept separately", () => {
  const a = action(
    'Let me look that up.\n<tool_call>\n{"name": "get_order", "arguments": {"order_id": "W123"}}\n</tool_call>\n' +
      '<tool_call>{"name": "get_user", "arguments": "{\\"user_id\\": \\"u1\\"}"}</tool_call>',
  );
  assert.equal(a.kind, "tool_calls");
  if (a.kind !== "tool_calls") return;
  assert.deepEqual(
    a.calls.map((c) => [c.id, c.name, c.arguments]),
    [
      ["call_0", "get_order", { order_id: "W123" }],
      ["call_1", "get_user", { user_id: "u1" }],
    ],
  );
  assert.equal(a.text, "Let me look that up.");
});

test("<think> blocks are ignored and an unclosed final <tool_call> is still parsed", () => {
  const a = action('<think>I should call it {"name": "x"}</think><tool_call>{"name": "ping", "arguments": {}}');
  assert.equal(a.kind, "tool_calls");
  if (a.kind === "tool_calls") assert.equal(a.calls[0].name, "ping");
});

test("bare JSON object, JSON list and ```json fences are function calls", () => {
  const single = action('{"name": "search_flights", "arguments": {"from": "SFO", "to": "JFK"}}');
  assert.equal(single.kind === "tool_calls" && single.calls[0].arguments.to, "JFK");
  const list = action('[{"name": "a", "arguments": {}}, {"function": {"name": "b", "arguments": "{\\"k\\": 1}"}}]');
  assert.deepEqual(list.kind === "tool_calls" && list.calls.map((c) => [c.name, c.arguments]), [
    ["a", {}],
    ["b", { k: 1 }],
  ]);
  const fenced = action('Sure.\n```json\n{"name": "cancel", "parameters": {"id": 7}}\n```');
  assert.equal(fenced.kind, "tool_calls");
  if (fenced.kind === "tool_calls") {
    assert.deepEqual(fenced.calls[0].arguments, { id: 7 });
    assert.equal(fenced.text, "Sure.");
  }
});

test("a fenced JSON example without a name is just a message", () => {
  const a = action('Your receipt:\n```json\n{"total": 12}\n```');
  assert.equal(a.kind, "message");
});

test("bracketed formats: action (free text or call), search, answer, finish", () => {
  assert.deepEqual(action("[search] capital of France"), { kind: "search", query: "capital of France" });
  assert.deepEqual(action("[answer] Paris"), { kind: "answer", answer: "Paris" });
  assert.deepEqual(action("[finish]"), { kind: "finish", text: "" });
  assert.deepEqual(action("[action] Is it an animal?"), { kind: "action", content: "Is it an animal?" });
  const call = action('[action] book_table({"time": "19:00", "people": 2})');
  assert.equal(call.kind === "action" && call.call?.name, "book_table");
  assert.deepEqual(call.kind === "action" && call.call?.arguments, { time: "19:00", people: 2 });
  const kw = action('[action] transfer(amount=50, to="savings")');
  assert.deepEqual(kw.kind === "action" && kw.call?.arguments, { amount: 50, to: "savings" });
});

test("plain text is a message to the user", () => {
  assert.deepEqual(action("Could you give me your booking code?"), {
    kind: "message",
    text: "Could you give me your booking code?",
  });
});

test("malformed calls return structured errors instead of throwing", () => {
  const cases: [string, string][] = [
    ['<tool_call>{"name": "get_order", "arguments": {"order_id": }</tool_call>', "invalid_json"],
    ['{"arguments": {"x": 1}}', "missing_name"],
    ['{"name": "f", "arguments": [1, 2]}', "bad_arguments"],
    ['{"name": "f", "arguments": "{not json"}', "bad_arguments"],
    ["   <think>only thoughts</think>  ", "empty"],
    ["[answer]", "empty_bracket"],
  ];
  for (const [text, code] of cases) {
    const r = parsePolicyAction(text);
    assert.equal(r.ok, false, text);
    if (!r.ok) {
      assert.equal(r.error.code, code, text);
      assert.ok(r.error.message.length > 10);
    }
  }
});

test("parse errors become environment observations flagged with formatError", () => {
  const r = parsePolicyAction("{broken");
  assert.equal(r.ok, false);
  if (r.ok) return;
  const obs = formatErrorObservation(r.error, 3);
  assert.equal(obs.source, "environment");
  assert.equal(obs.turn, 3);
  assert.match(obs.content, /Format error \(invalid_json\)/);
  assert.ok(obs.formatError?.startsWith("invalid_json"));
});

test("tool schemas are rendered into the system prompt in each style", () => {
  const tools = [
    { name: "get_order", description: "Look up an order.", parameters: { type: "object", properties: { order_id: { type: "string" } } } },
  ];
  const hermes = formatToolsPrompt(tools, "hermes");
  assert.match(hermes, /<tools>\n\{"type":"function","function":\{"name":"get_order"/);
  assert.match(hermes, /<tool_call>/);
  assert.match(formatToolsPrompt(tools, "bracket"), /- get_order: Look up an order\./);
  assert.match(formatToolsPrompt([], "json"), /no tools/);
});

test("a call written in each prompt style by formatToolCallText parses back to the same call", () => {
  for (const style of ["hermes", "json", "bracket"] as const) {
    const r = parsePolicyAction(formatToolCallText("FindRestaurants", { city: "Palo Alto", cuisine: "Italian" }, style));
    assert.ok(r.ok, style);
    const call = r.action.kind === "tool_calls" ? r.action.calls[0] : r.action.kind === "action" ? r.action.call : undefined;
    assert.deepEqual(
      { name: call?.name, arguments: call?.arguments },
      { name: "FindRestaurants", arguments: { city: "Palo Alto", cuisine: "Italian" } },
      style,
    );
  }
});

test("calls sent as data are the action (ids kept, OpenAI's string arguments read), prose is the text beside them", async () => {
  const { readPolicyAction } = await import("./index");
  const r = readPolicyAction(
    "<think>hmm</think>One moment.",
    [
      { id: "call_7", name: "get_order", arguments: '{"order_id": "W1"}' },
      { name: "ping", arguments: {} },
    ],
    {
      idPrefix: "t3_call_",
    },
  );
  assert.ok(r.ok);
  assert.deepEqual(r.ok && r.action, {
    kind: "tool_calls",
    calls: [
      { id: "call_7", name: "get_order", arguments: { order_id: "W1" } },
      { id: "t3_call_1", name: "ping", arguments: {} },
    ],
    text: "One moment.",
  });
  const bad = readPolicyAction("", [{ name: "get_order", arguments: "{order_id: W1" }]);
  assert.equal(!bad.ok && bad.error.code, "bad_arguments");
  assert.deepEqual(readPolicyAction("[answer] 4", undefined), parsePolicyAction("[answer] 4"), "no calls: the text is parsed as before");
});
