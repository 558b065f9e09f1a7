import { test } from "node:test";
import assert from "node:assert/strict";
import { ByteTokenizer } from "./byte";
import { loadHfTokenizer, type TokenizerJson } from "../../../lib/tokenizer/hf-tokenizer";
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

test("a tokenizer.json the library cannot run is rejected with a clear error", () => {
  const json = { model: { type: "NoSuchModel", vocab: [] } } as unknown as TokenizerJson;
  assert.throws(
    () => loadHfTokenizer(json),
    (e: unknown) => e instanceof TokenizerError && /tokenizer\.json cannot be loaded/.test(e.message),
  );
});

test("a real-sized vocabulary loads (Qwen2's 151,643 tokens and its added ids above them)", () => {
  const json = tinyQwenJson();
  const vocab = { ...(json.model.vocab as Record<string, number>) };
  for (let i = 1000; i < 151_643; i++) vocab[`Ġfill${i}`] = i;
  const tok = loadHfTokenizer({
    ...json,
    model: { ...json.model, vocab },
    added_tokens: [{ id: 151_645, content: "<|im_end|>", special: true }],
  });
  assert.equal(tok.vocabSize, 151_646);
  assert.equal(tok.eosId, 151_645);
});
