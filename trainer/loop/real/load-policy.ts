/**
 * The policy a run trains, from RunConfig `policy`: a built-in size (tiny / small / base) on the byte tokenizer or
 * a Hugging Face tokenizer.json, or a local Hugging Face checkpoint folder (Llama / Qwen2 / Qwen3 / Mistral:
 * config.json, model.safetensors, tokenizer files) with its own tokenizer and chat template; optional LoRA
 * adapters on top. Its ChatFormat (policy/chat) is how every prompt is rendered and every reply read.
 */
import { readDataJson } from "../../data-roots";
import type { RunConfig } from "../../../lib/run-config";
import { loadHfCheckpoint } from "../../checkpoint/hf-load";
import { HfCheckpointError, modelConfigFromHf } from "../../checkpoint/hf-config";
import path from "node:path";
import { BUILTIN_MODEL_DIMS, BYTE_VOCAB_SIZE, type BuiltinModelSize } from "../../../lib/model-sizes";
import type { ModelConfig } from "../../policy/config";
import { DecoderLM } from "../../policy/model";
import { ByteTokenizer } from "../../policy/tokenizer/byte";
import type { ChatFormat } from "../../policy/chat/chat-format";
import { builtinChatFormat, chatSettingsOf, loadChatFormat, type ChatFormatSettings } from "../../policy/chat/load-chat-format";
import { promises as fs } from "node:fs";

/** Built-in sizes (lib/model-sizes.ts, shared with the web app's memory estimate). */
function builtInConfig(name: BuiltinModelSize, vocabSize: number, contextLength?: number): ModelConfig {
  const dims = BUILTIN_MODEL_DIMS[name];
  return { ...dims, maxPositions: contextLength ?? dims.maxPositions, vocabSize, ropeTheta: 10000, rmsNormEps: 1e-5 };
}

/** policy.tokenizer's ChatFormat: the byte tokenizer with the built-in ChatML template, or a tokenizer.json's folder. */
async function tokenizerChat(spec: string, settings: ChatFormatSettings): Promise<ChatFormat> {
  return spec === "byte" ? builtinChatFormat(new ByteTokenizer(), settings) : loadChatFormat(spec, settings);
}

const hasTokenizer = (dir: string) =>
  fs.stat(path.join(dir, "tokenizer.json")).then(
    (s) => s.isFile(),
    () => false,
  );

/**
 * The ChatFormat a run's policy reads and writes through, without its weights (the pre-flight plan needs no more):
 * a checkpoint folder's own tokenizer and template win; checkpoints Rollout Lab saved from a byte-tokenizer model
 * have none and use policy.tokenizer's.
 */
export async function policyChatFormat(config: RunConfig): Promise<ChatFormat> {
  const name = config.policy.model;
  const settings = chatSettingsOf(config);
  if (Object.hasOwn(BUILTIN_MODEL_DIMS, name)) return tokenizerChat(config.policy.tokenizer, settings);
  if (await hasTokenizer(name)) return loadChatFormat(name, settings);
  if (config.policy.tokenizer === "byte") await refuseByteTokenizerFor(name);
  return tokenizerChat(config.policy.tokenizer, settings);
}

/**
 * A folder without tokenizer.json would fall back to the byte tokenizer and its built-in ChatML: a Qwen folder then
 * feeds 259 ids into a 151,936-row embedding and "trains" to empty replies. Only a folder whose embedding is the byte
 * tokenizer's (one Rollout Lab saved from a byte-tokenizer run) may; any other is refused naming the missing file.
 */
async function refuseByteTokenizerFor(dir: string): Promise<void> {
  const cfgFile = path.join(dir, "config.json");
  const cfg = await readDataJson<{ vocab_size?: unknown }>(cfgFile).catch(() => null);
  if (cfg === null || cfg.vocab_size === BYTE_VOCAB_SIZE) return; // no config.json: loadHfCheckpoint says so
  throw new HfCheckpointError(
    `policy.model "${dir}" has no tokenizer.json (its config.json declares vocab_size ${String(cfg.vocab_size)}), so it would train on the ${BYTE_VOCAB_SIZE}-token byte tokenizer; copy the model's tokenizer.json (and tokenizer_config.json) into the folder, or set policy.tokenizer to the tokenizer.json it was trained with.`,
  );
}

/**
 * The policy's dimensions without building it: the worker places a run on a backend (the wasm heap or RAM) from
 * them before any weight is allocated.
 */
export async function policyModelConfig(config: RunConfig): Promise<ModelConfig> {
  const name = config.policy.model;
  if (Object.hasOwn(BUILTIN_MODEL_DIMS, name)) {
    const { tokenizer } = await tokenizerChat(config.policy.tokenizer, chatSettingsOf(config));
    return builtInConfig(name as BuiltinModelSize, tokenizer.vocabSize, config.policy.contextLength);
  }
  return withContext(modelConfigFromHf(await readDataJson(path.join(name, "config.json"))), config.policy.contextLength);
}

/**
 * A Hugging Face folder's context for training: policy.contextLength, else its max_position_embeddings capped at
 * HF_DEFAULT_CONTEXT. Qwen2.5 declares 32,768 positions: training at that length was refused by the step-memory
 * check (its attention alone is terabytes), so a real checkpoint could not train at all. Rotary tables do not depend
 * on the length, so a shorter context computes the same values for the positions it has.
 */
export const HF_DEFAULT_CONTEXT = 4096;
function withContext(c: ModelConfig, contextLength: number | undefined): ModelConfig {
  return { ...c, maxPositions: Math.min(c.maxPositions, contextLength ?? HF_DEFAULT_CONTEXT) };
}

/** The Hugging Face folder the policy is loaded from (its checkpoints keep its config.json and dtypes), or null. */
export const policySourceFolder = (config: RunConfig): string | null =>
  Object.hasOwn(BUILTIN_MODEL_DIMS, config.policy.model) ? null : config.policy.model;

export async function loadPolicy(config: RunConfig): Promise<{ model: DecoderLM; chat: ChatFormat }> {
  const name = config.policy.model;
  // Read before the weights: a broken template fails the run before gigabytes are loaded.
  const chat = await policyChatFormat(config);
  let model: DecoderLM;
  if (Object.hasOwn(BUILTIN_MODEL_DIMS, name)) {
    model = new DecoderLM(builtInConfig(name as BuiltinModelSize, chat.tokenizer.vocabSize, config.policy.contextLength), {
      seed: config.seed,
    });
  } else {
    const loaded = await loadHfCheckpoint(name, { trainable: true, configure: (c) => withContext(c, config.policy.contextLength) });
    model = loaded.model;
    const tokenizer = chat.tokenizer;
    if (tokenizer.vocabSize > model.config.vocabSize) {
      model.dispose();
      throw new Error(
        `policy.model "${name}" has ${model.config.vocabSize} embeddings but its tokenizer has ${tokenizer.vocabSize} tokens; set policy.tokenizer to the tokenizer the model was trained with.`,
      );
    }
  }
  model.recomputeActivations = config.policy.recomputeActivations;
  if (config.policy.lora) {
    model.enableLora(
      { rank: config.policy.lora.rank, alpha: config.policy.lora.alpha, targets: ["q_proj", "k_proj", "v_proj", "o_proj"] },
      config.seed,
    );
    // the base is frozen now: half its bytes in bfloat16 where the kernels allow (real-deps says when they do not)
    if (config.policy.frozenWeights === "bf16") model.storeFrozenAsBf16();
  }
  return { model, chat };
}
