/**
 * Decoder configuration, named after transformers' LlamaConfig / Qwen2Config / Qwen3Config fields so `config.json`
 * of a Hugging Face checkpoint maps onto it directly (see checkpoint/hf-load.ts).
 */
import { countParameters as countDimsParameters, headDimOf } from "../../lib/model-sizes";
import type { Llama3RopeScaling } from "./ops";

export interface ModelConfig {
  vocabSize: number;
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  /** Grouped-query attention (Ainslie et al. 2023): numHeads must be a multiple of it. Equal to numHeads = MHA. */
  numKvHeads: number;
  intermediateSize: number;
  maxPositions: number;
  ropeTheta: number;
  rmsNormEps: number;
  tieEmbeddings: boolean;
  /** Qwen2 puts biases on q/k/v projections; Llama has none. */
  attentionBias: boolean;
  /** `head_dim` when the config sets one that is not hiddenSize / numHeads (Qwen3-0.6B: 128 with 1024 / 16). */
  headDim?: number;
  /** Qwen3: RMSNorm over each query and key head (q_norm, k_norm weights of headDim) before rotary positions. */
  qkNorm?: boolean;
  /** Llama 3.1 / 3.2's rotary scaling (rope_scaling with rope_type "llama3"); plain rotary without it. */
  ropeScaling?: Llama3RopeScaling;
  /**
   * The attention window of a sliding-window model (Mistral's `sliding_window`, Qwen's with use_sliding_window).
   * Within the window sliding-window attention is full attention, so such a model runs only at a context that
   * fits the window (validateModelConfig refuses a longer one).
   */
  slidingWindow?: number;
}

export class ModelConfigError extends Error {
  readonly code = "MODEL_CONFIG_INVALID";
  constructor(message: string) {
    super(message);
    this.name = "ModelConfigError";
  }
}

export const PRESETS = {
  /** Unit tests: a few thousand parameters. */
  micro: {
    vocabSize: 259,
    hiddenSize: 32,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    intermediateSize: 64,
    maxPositions: 256,
    ropeTheta: 10000,
    rmsNormEps: 1e-5,
    tieEmbeddings: false,
    attentionBias: false,
  },
  /** The bench reference shape: vocab 256, d 128, 4 layers, 4 heads, context 128, MLP 512 (1.1M params with the byte vocabulary). */
  bench: {
    vocabSize: 256,
    hiddenSize: 128,
    numLayers: 4,
    numHeads: 4,
    numKvHeads: 4,
    intermediateSize: 512,
    maxPositions: 128,
    ropeTheta: 10000,
    rmsNormEps: 1e-5,
    tieEmbeddings: false,
    attentionBias: false,
  },
  /** A "few hundred M" upper end, Qwen2.5-0.5B-like shape (only for machines with the memory). */
  small: {
    vocabSize: 151936,
    hiddenSize: 896,
    numLayers: 24,
    numHeads: 14,
    numKvHeads: 2,
    intermediateSize: 4864,
    maxPositions: 32768,
    ropeTheta: 1000000,
    rmsNormEps: 1e-6,
    tieEmbeddings: true,
    attentionBias: true,
  },
} satisfies Record<string, ModelConfig>;

function positiveInt(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 1) throw new ModelConfigError(`${name} must be a positive integer, got ${v}.`);
}

/** Throws ModelConfigError with the field and a fix when the config cannot describe a working model. */
export function validateModelConfig(c: ModelConfig): ModelConfig {
  positiveInt("vocabSize", c.vocabSize);
  positiveInt("hiddenSize", c.hiddenSize);
  positiveInt("numLayers", c.numLayers);
  positiveInt("numHeads", c.numHeads);
  positiveInt("numKvHeads", c.numKvHeads);
  positiveInt("intermediateSize", c.intermediateSize);
  positiveInt("maxPositions", c.maxPositions);
  if (c.headDim !== undefined) positiveInt("headDim", c.headDim);
  else if (c.hiddenSize % c.numHeads !== 0) {
    throw new ModelConfigError(
      `numHeads (${c.numHeads}) must divide hiddenSize (${c.hiddenSize}); pick e.g. ${divisorsNear(c.hiddenSize, c.numHeads)}.`,
    );
  }
  if (c.numHeads % c.numKvHeads !== 0) {
    throw new ModelConfigError(`numKvHeads (${c.numKvHeads}) must divide numHeads (${c.numHeads}) for grouped-query attention.`);
  }
  if (headDim(c) % 2 !== 0) {
    throw new ModelConfigError(`the head size (${headDim(c)}) must be even for rotary positions.`);
  }

  if (!(c.ropeTheta > 0)) throw new ModelConfigError(`ropeTheta must be > 0, got ${c.ropeTheta}.`);
  if (!(c.rmsNormEps > 0)) throw new ModelConfigError(`rmsNormEps must be > 0, got ${c.rmsNormEps}.`);
  return c;
}

/**
 * A model is built only at a context its attention window covers: sliding-window attention is not implemented, and
 * within the window it is exactly full attention. (A checkpoint's config.json declares more positions than a run
 * uses, so this is checked on the model built, not on the folder's config.)
 */
export function assertWindowCoversContext(c: ModelConfig): void {
  if (c.slidingWindow !== undefined && c.maxPositions > c.slidingWindow) {
    throw new ModelConfigError(
      `the model attends over a sliding window of ${c.slidingWindow} tokens, which Rollout Lab does not implement; within the window it is full attention, so set policy.contextLength to at most ${c.slidingWindow} (the context is ${c.maxPositions}).`,
    );
  }
}

function divisorsNear(n: number, near: number): string {
  const ds: number[] = [];
  for (let d = 1; d <= n; d++) if (n % d === 0 && (n / d) % 2 === 0) ds.push(d);
  ds.sort((a, b) => Math.abs(a - near) - Math.abs(b - near));
  return ds.slice(0, 3).join(" or ");
}

export const headDim = (c: ModelConfig) => headDimOf(c);

/** Parameter count (what transformers' num_parameters() reports, tied embeddings counted once). */
export function countParameters(c: ModelConfig): number {
  return countDimsParameters(c, c.vocabSize);
}
