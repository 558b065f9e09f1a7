/**
 * Writes a Hugging Face model folder with a real architecture's config, shapes and tokenizer files and random
 * weights — what `policy.model` points at for a real checkpoint, without downloading one (this machine has no model
 * hub). Generated, never committed: Qwen2.5-0.5B's folder is 1 GB. bench:hf trains on one; docs/checkpoints.md's
 * worked example writes a small one (scripts/random-checkpoint.ts).
 *
 *   config.json             the given transformers config (Qwen2.5-0.5B-Instruct's by default: Qwen2ForCausalLM,
 *                           d 896, 24 layers, GQA 14/2, vocab 151,936, 32,768 positions, rope θ 1e6, tied embeddings)
 *   model.safetensors       every tensor under transformers' names and [out, in] shapes, BF16 as Qwen ships them:
 *                           N(0, 0.02)-scaled uniform weights, norms 1, biases 0
 *   tokenizer files         copied from `tokenizerFrom` (tokenizer.json, tokenizer_config.json with its chat template,
 *                           generation_config.json, chat_template.jinja — whichever are there); without it, a
 *                           tokenizer.json in Qwen2's id layout: a byte-level BPE of 151,643 tokens (the 256 byte
 *                           symbols, then fillers no merge reaches), <|endoftext|> 151643, <|im_start|> 151644,
 *                           <|im_end|> 151645 and Qwen's other added tokens up to 151664 (the embedding is padded to
 *                           151,936 as Qwen's is)
 */
import { copyFileSync, mkdirSync, openSync, writeSync, closeSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { paramSpecs } from "../policy/params";
import { mulberry32 } from "../../lib/seeded-random";
import { modelConfigFromHf } from "./hf-config";
import { TOKENIZER_FILES } from "../policy/chat/load-chat-format";

export const QWEN25_05B_CONFIG = {
  architectures: ["Qwen2ForCausalLM"],
  model_type: "qwen2",
  hidden_act: "silu",
  hidden_size: 896,
  intermediate_size: 4864,
  num_attention_heads: 14,
  num_hidden_layers: 24,
  num_key_value_heads: 2,
  max_position_embeddings: 32768,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000.0,
  sliding_window: 32768,
  use_sliding_window: false,
  tie_word_embeddings: true,
  torch_dtype: "bfloat16",
  vocab_size: 151936,
  bos_token_id: 151643,
  eos_token_id: 151645,
};

const QWEN_SPECIALS = [
  "<|endoftext|>",
  "<|im_start|>",
  "<|im_end|>",
  "<|object_ref_start|>",
  "<|object_ref_end|>",
  "<|box_start|>",
  "<|box_end|>",
  "<|quad_start|>",
  "<|quad_end|>",
  "<|vision_start|>",
  "<|vision_end|>",
  "<|vision_pad|>",
  "<|image_pad|>",
  "<|video_pad|>",
  "<tool_call>",
  "</tool_call>",
  "<|fim_prefix|>",
  "<|fim_middle|>",
  "<|fim_suffix|>",
  "<|fim_pad|>",
  "<|repo_name|>",
  "<|file_sep|>",
];
const REGULAR_TOKENS = 151643;

/** GPT-2's printable stand-ins for the 256 bytes, in its id order. */
function byteSymbols(): string[] {
  const printable = [...range(0x21, 0x7e), ...range(0xa1, 0xac), ...range(0xae, 0xff)];
  const out = printable.map((b) => String.fromCharCode(b));
  let extra = 0;
  for (let b = 0; b < 256; b++) if (!printable.includes(b)) out.push(String.fromCharCode(256 + extra++));
  return out;
}
function range(a: number, b: number): number[] {
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
}

function tokenizerJson(): string {
  const vocab: Record<string, number> = {};
  byteSymbols().forEach((s, i) => (vocab[s] = i));
  for (let i = 256; i < REGULAR_TOKENS; i++) vocab[`Ġfill${i}`] = i;
  return JSON.stringify({
    version: "1.0",
    added_tokens: QWEN_SPECIALS.map((content, k) => ({ id: REGULAR_TOKENS + k, content, special: k < 14 })),
    normalizer: { type: "NFC" },
    pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: true },
    decoder: { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: true },
    model: { type: "BPE", vocab, merges: [], byte_fallback: false },
  });
}

/** Random bf16 weights: the top half of a float32's bits (bf16 is float32 with the low 16 mantissa bits cut). */
function bf16Tensor(n: number, init: "normal" | "ones" | "zeros", random: () => number): Buffer {
  const out = new Uint16Array(n);
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  const half = 0.02 * Math.sqrt(3); // uniform on ±half has the standard deviation 0.02 of transformers' init
  for (let i = 0; i < n; i++) {
    f[0] = init === "ones" ? 1 : init === "zeros" ? 0 : (2 * random() - 1) * half;
    out[i] = u[0] >>> 16;
  }
  return Buffer.from(out.buffer);
}

/** Qwen2.5-0.5B-Instruct's folder at full size, for bench:hf (unless it is there already); returns its path. */
export function writeRandomQwen05Folder(dir: string): string {
  return writeRandomHfFolder(dir, QWEN25_05B_CONFIG);
}

/** Qwen2.5's architecture and vocabulary at a size for examples and tests: 10 M parameters, nine tenths of them the embedding. */
export const QWEN25_SMALL_CONFIG = {
  ...QWEN25_05B_CONFIG,
  hidden_size: 64,
  intermediate_size: 128,
  num_attention_heads: 4,
  num_hidden_layers: 2,
  num_key_value_heads: 2,
};

/** Writes a folder for `config` (unless it is there already); returns its path. */
export function writeRandomHfFolder(
  dir: string,
  config: Record<string, unknown>,
  opts: { tokenizerFrom?: string; seed?: number } = {},
): string {
  if (existsSync(path.join(dir, "COMPLETE"))) return dir;
  mkdirSync(dir, { recursive: true });
  const model = modelConfigFromHf(config);
  const specs = paramSpecs(model);
  const header: Record<string, unknown> = { __metadata__: { format: "pt" } };
  let offset = 0;
  for (const s of specs) {
    const bytes = 2 * s.hfShape.reduce((a, b) => a * b, 1);
    header[s.name] = { dtype: "BF16", shape: s.hfShape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += " ".repeat((8 - (json.length % 8)) % 8); // the data starts 8-byte aligned
  const fd = openSync(path.join(dir, "model.safetensors"), "w");
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(BigInt(json.length));
  writeSync(fd, size);
  writeSync(fd, json);
  const random = mulberry32(opts.seed ?? 2025);
  for (const s of specs)
    writeSync(
      fd,
      bf16Tensor(
        s.hfShape.reduce((a, b) => a * b, 1),
        s.init,
        random,
      ),
    );
  closeSync(fd);
  writeFileSync(path.join(dir, "config.json"), JSON.stringify(config, null, 2));
  const from = opts.tokenizerFrom;
  if (from) for (const f of TOKENIZER_FILES) if (existsSync(path.join(from, f))) copyFileSync(path.join(from, f), path.join(dir, f));
  if (!from) writeFileSync(path.join(dir, "tokenizer.json"), tokenizerJson());
  writeFileSync(path.join(dir, "COMPLETE"), "");
  return dir;
}
