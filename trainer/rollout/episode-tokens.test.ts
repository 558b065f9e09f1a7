import { test } from "node:test";
import assert from "node:assert/strict";
import type { ConversationMessage } from "../../lib/conversation";
import { ByteTokenizer } from "../policy/tokenizer/byte";
import { renderChat } from "../policy/tokenizer/chat-template";
import { EpisodeTokens } from "./episode-tokens";

const tok = new ByteTokenizer();
const IM_END = tok.tokenId("<|im_end|>") as number;
const bytes = (s: string) => [...new TextEncoder().encode(s)];
const msg = (role: ConversationMessage["role"], source: ConversationMessage["source"], content: string, turn = 0): ConversationMessage => ({
  role,
  source,
  content,
  turn,
});

/** Plays a conversation the way runEpisode does: policy turns sampled as `turns`, observations in between. */
function play(turns: { sampled: number[]; stopped: boolean }[]) {
  const t = new EpisodeTokens(tok);
  const messages: ConversationMessage[] = [msg("system", "system", "Guess 1-9."), msg("user", "user_simulator", "Go")];
  turns.forEach((turn, i) => {
    t.prompt(messages);
    t.addTurn(turn.sampled, i, turn.stopped);
    messages.push(msg("assistant", "policy", t.text(turn.sampled), i));
    messages.push(msg("user", "user_simulator", i === 0 ? "higher" : "yes", i));
  });
  return { t, messages };
}

test("well-formed turns: the recorded ids are the chat template of the whole conversation, policy tokens trainable", () => {
  const { t, messages } = play([
    { sampled: [...bytes("[answer] 5"), IM_END], stopped: true },
    { sampled: [...bytes("[answer] 7"), IM_END], stopped: true },
  ]);
  const whole = renderChat(
    tok,
    messages.slice(0, -1).map((m) => ({ role: m.role, content: m.content, source: m.source })),
  );
  // the whole render ends with the separator after the last turn, which the next observation would bring
  assert.deepEqual(t.ids, whole.ids.slice(0, -1));
  assert.deepEqual(t.lossMask, whole.lossMask.slice(0, -1));
  assert.equal(t.responseTokens, 2 * (bytes("[answer] 5").length + 1));
});

test("tokens that do not survive decode + encode are kept as sampled (no re-tokenisation drift)", () => {
  const invalidUtf8 = [0xff, 0xc3, 0x41]; // decodes to U+FFFD U+FFFD "A": re-encoding would give 7 other bytes
  const { t, messages } = play([{ sampled: [...invalidUtf8, IM_END], stopped: true }]);
  const start = t.lossMask.indexOf(1);
  assert.deepEqual(t.ids.slice(start, start + 4), [...invalidUtf8, IM_END]);
  const reRendered = renderChat(
    tok,
    messages.slice(0, -1).map((m) => ({ role: m.role, content: m.content, source: m.source })),
  );
  assert.notDeepEqual(reRendered.ids, t.ids, "re-rendering the text would have changed the tokens");
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
  assert.equal(train.turnIds.length, train.ids.length);
});

test("an opening prompt longer than the room keeps its end, for good; later turns are never cut", () => {
  const t = new EpisodeTokens(tok);
  const messages: ConversationMessage[] = [msg("system", "system", "x".repeat(200)), msg("user", "user_simulator", "Go")];
  const full = renderChat(
    tok,
    messages.map((m) => ({ role: m.role, content: m.content, source: m.source })),
    { addGenerationPrompt: true },
  ).ids;
  const first = t.prompt(messages, 50);
  assert.deepEqual(first, full.slice(-50));
  assert.equal(t.truncatedPrompt, full.length - 50);
  t.addTurn([...bytes("ok"), IM_END], 0, true);
  messages.push(msg("assistant", "policy", "ok"), msg("user", "user_simulator", "y".repeat(100), 1));
  const second = t.prompt(messages, 50);
  assert.ok(second.length > 50, "a later prompt is returned whole; the caller decides the episode is over");
  assert.deepEqual(second.slice(0, 50), full.slice(-50), "the cut opening stays the start of the sequence");
});
