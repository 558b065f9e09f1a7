/**
 * The policy a run trains, from RunConfig `policy`: a built-in size (tiny / small / base) on the byte tokenizer or
 * a Hugging Face tokenizer.json, or a local Hugging Face checkpoint folder (Llama / Qwen2: config.json,
 * model.safetensors, tokenizer.json) with its own tokenizer; optional LoRA adapters on top.
 */
import { readDataJson } from "../../data-roots";
import type { RunConfig } from "../../../lib/run-config";
import { loadHfCheckpoint } from "../../checkpoint/hf-load";
import { modelConfigFromHf } from "../../checkpoint/hf-config";
import path from "node:path";
import { BUILTIN_MODEL_DIMS, type BuiltinModelSize } from "../../../lib/model-sizes";
import type { ModelConfig } from "../../policy/config";
import { DecoderLM } from "../../policy/model";
import { ByteTokenizer } from "../../policy/tokenizer/byte";
import { loadHfTokenizer } from "../../../lib/tokenizer/hf-tokenizer";
import type { Tokenizer } from "../../../lib/tokenizer/types";

/** Built-in sizes (lib/model-sizes.ts, shared with the web app's memory estimate). */
function builtInConfig(name: BuiltinModelSize, vocabSize: number, contextLength?: number): ModelConfig {
  const dims = BUILTIN_MODEL_DIMS[name];
  return { ...dims, maxPositions: contextLength ?? dims.maxPositions, vocabSize, ropeTheta: 10000, rmsNormEps: 1e-5 };
}

/** The tokenizer `policy.tokenizer` names (a checkpoint folder's own tokenizer.json takes precedence in loadPolicy). */
export async function loadTokenizer(spec: string): Promise<Tokenizer> {
  if (spec === "byte") return new ByteTokenizer();
  return loadHfTokenizer(await readDataJson(spec));
}

/**
 * The policy's dimensions without building it: the worker places a run on a backend (the wasm heap or RAM) from
 * them before any weight is allocated.
 */
export async function policyModelConfig(config: RunConfig): Promise<ModelConfig> {
  const name = config.policy.model;
  if (Object.hasOwn(BUILTIN_MODEL_DIMS, name)) {
    const tokenizer = await loadTokenizer(config.policy.tokenizer);
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

export async function loadPolicy(config: RunConfig): Promise<{ model: DecoderLM; tokenizer: Tokenizer }> {
  const name = config.policy.model;
  let model: DecoderLM;
  let tokenizer: Tokenizer;
  if (Object.hasOwn(BUILTIN_MODEL_DIMS, name)) {
    tokenizer = await loadTokenizer(config.policy.tokenizer);
    model = new DecoderLM(builtInConfig(name as BuiltinModelSize, tokenizer.vocabSize, config.policy.contextLength), { seed: config.seed });
  } else {
    const loaded = await loadHfCheckpoint(name, { trainable: true, configure: (c) => withContext(c, config.policy.contextLength) });
    model = loaded.model;
    // The folder's own tokenizer.json wins; checkpoints Rollout Lab saved from a byte-tokenizer model have none.
    tokenizer = loaded.tokenizer ?? (await loadTokenizer(config.policy.tokenizer));
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
  return { model, tokenizer };
}
