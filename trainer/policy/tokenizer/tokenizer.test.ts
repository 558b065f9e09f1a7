import { test } from "node:test";
import assert from "node:assert/strict";
import { ByteTokenizer } from "./byte";
import { loadHfTokenizer, type TokenizerJson } from "../../../lib/tokenizer/hf-tokenizer";
import { renderChat, renderContinuation, endOfTurnId } from "./chat-template";
import { TokenizerError } from "../../../lib/tokenizer/types";

/** A tiny byte-level BPE tokenizer.json in the Qwen2 layout (Split regex + ByteLevel, ChatML specials). */
function tinyQwenJson(): TokenizerJson {
  const vocab: Record<string, number> = {};
  // GPT-2 byte alphabet: printable ASCII maps to itself, space to "Ġ", newline to "Ċ"
  const chars = [..."abcdefghijklmnopqrstuvwxyzHI!?'0123456789", "Ġ", "Ċ"];
  chars.forEach((c, i) => (vocab[c] = i));
  const merges = [
    ["h", "e"],
    ["l", "l"],
    ["he", "ll"],
    ["hell", "o"],
    ["Ġ", "w"],
    ["Ġw", "o"],
  ];
  for (const [a, b] of merges) vocab[a + b] = Object.keys(vocab).length;
  return {
    added_tokens: [
      { id: 100, content: "<|endoftext|>", special: true },
      { id: 101, content: "<|im_start|>", special: true },
      { id: 102, content: "<|im_end|>", special: true },
    ],
    normalizer: { type: "NFC" },
    pre_tokenizer: {
      type: "Sequence",
      pretokenizers: [
        {
          type: "Split",
          pattern: {
            Regex:
              "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
          },
          behavior: "Isolated",
          invert: false,
        },
        { type: "ByteLevel", add_prefix_space: false, use_regex: false },
      ],
    },
    model: { type: "BPE", vocab, merges: merges.map(([a, b]) => `${a} ${b}`) },
    decoder: { type: "ByteLevel" },
  };
}

test("byte tokenizer round-trips any text and keeps special tokens whole", () => {
  const tok = new ByteTokenizer();
  const text = "héllo 🌍 <|im_end|>";
  const ids = tok.encode(text);
  assert.equal(ids.at(-1), tok.tokenId("<|im_end|>"));
  assert.equal(tok.decode(ids), text);
});

test("byte-level BPE applies merges in rank order, matches specials and decodes back", () => {
  const tok = loadHfTokenizer(tinyQwenJson());
  const ids = tok.encode("hello wo<|im_end|>");
  const v = tinyQwenJson().model.vocab as Record<string, number>;
  assert.deepEqual(ids, [v["hello"], v["Ġwo"], 102]);
  assert.equal(tok.decode(ids), "hello wo<|im_end|>");
  assert.equal(tok.decode(tok.encode("HI 42!\n")), "HI 42!\n");
  assert.equal(tok.vocabSize, 103);
  assert.equal(tok.eosId, 102);
});

test("merges given as pairs (newer tokenizer.json) work the same", () => {
  const json = tinyQwenJson();
  json.model.merges = (json.model.merges as string[]).map((m) => m.split(" ") as [string, string]);
  assert.equal(loadHfTokenizer(json).encode("hello").length, 1);
});

test("a non-BPE tokenizer.json is rejected with a clear error", () => {
  const json = { model: { type: "Unigram", vocab: [] } } as unknown as TokenizerJson;
  assert.throws(
    () => loadHfTokenizer(json),
    (e: unknown) => e instanceof TokenizerError && /model type "Unigram" is not supported/.test(e.message),
  );
});

test("chat template masks everything but the policy's tokens, and continuation reproduces the full render", () => {
  const tok = loadHfTokenizer(tinyQwenJson());
  const convo = [
    { role: "system" as const, content: "hi", source: "system" },
    { role: "user" as const, content: "hello", source: "user_simulator" },
    { role: "assistant" as const, content: "wo", source: "policy" },
    { role: "tool" as const, content: "ok", source: "tool" },
  ];
  const r = renderChat(tok, convo);
  const trainable = r.ids.filter((_, i) => r.lossMask[i] === 1);
  assert.equal(tok.decode(trainable), "wo<|im_end|>");
  assert.equal(r.lossMask.length, r.ids.length);
  const head = renderChat(tok, convo.slice(0, 2), { addGenerationPrompt: true });
  const policy = tok.encode("wo<|im_end|>");
  const cont = renderContinuation(tok, convo.slice(3));
  const full = renderChat(tok, convo, { addGenerationPrompt: true });
  assert.deepEqual([...head.ids, ...policy, ...cont.ids], full.ids);
  assert.equal(endOfTurnId(tok), 102);
  assert.throws(() => renderChat(loadHfTokenizer({ ...tinyQwenJson(), added_tokens: [] }), convo), /no chat template/);
});

test("a real-sized vocabulary loads (Qwen2's 151,643 tokens and its added ids above them)", () => {
  const json = tinyQwenJson();
  const vocab: Record<string, number> = { ...json.model.vocab };
  for (let i = 1000; i < 151_643; i++) vocab[`Ġfill${i}`] = i;
  const tok = loadHfTokenizer({
    ...json,
    model: { ...json.model, vocab },
    added_tokens: [{ id: 151_645, content: "<|im_end|>", special: true }],
  });
  assert.equal(tok.vocabSize, 151_646);
  assert.equal(tok.eosId, 151_645);
});
