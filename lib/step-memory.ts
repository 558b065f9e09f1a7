/**
 * How much memory one training step of a run needs, estimated from its config before it is queued (the web app,
 * for built-in policy sizes) and again by the worker once the real model is loaded (checkpoint folders). A config
 * that cannot fit is refused with the figure, instead of growing until the worker dies (a 1024 × 256 × 100-turn
 * batch was accepted and ran; the wasm heap of the CPU path stops at 4 GiB).
 *
 * fp32 unless set otherwise. Terms:
 *   weights          4 B × parameters (a LoRA run: the frozen base plus its adapters; 2 B for the base in bf16)
 *   gradients        4 B × trainable parameters, accumulated over micro-batches
 *   optimizer        8 B × trainable parameters (AdamW's two moments; 2 B + a scale per 256 when 8-bit)
 *   reference        4 B × parameters when a KL reference is kept (grpo.klCoef > 0), 2 B in bf16; with LoRA only
 *                    the adapters' snapshot (the reference shares the frozen base weights)
 *   activations      kept for backward per micro-batch: per layer and token ~(8·d + 2·kv + 4·i) floats, the
 *                    attention probabilities (heads × T × T per sequence and layer: quadratic in the context, the
 *                    term that makes long contexts need small micro-batches), plus logits, log-softmax and their
 *                    gradient (3 × vocab floats per token)
 *   kv cache         sampling: 2 × layers × kv width × context × episodes decoded together
 */
import { countParameters, headDimOf, type ModelDims } from "./model-sizes";
import { readEnvVar } from "./env";
import type { RunConfig } from "./run-config";

const GiB = 2 ** 30;

export interface StepMemoryInput {
  dims: ModelDims;
  vocabSize: number;
  loraRank?: number;
  /** A frozen reference copy for the KL term. */
  reference: boolean;
  /** Trajectories per forward/backward pass. */
  microBatch: number;
  /** Episodes whose turns may be decoded together (the batched sampler caps batches at 64). */
  samplingBatch: number;
  /** AdamW's moments: fp32 (default) or 8-bit blockwise. */
  optimizerState?: "fp32" | "8bit";
  /** Activation checkpointing: each layer's input is kept and one layer's activations live at a time. */
  recomputeActivations?: boolean;
  /** Storage of weights without a gradient (a LoRA base, a KL reference). */
  frozenWeights?: "fp32" | "bf16";
}

/** The estimate's input for a run config and its policy's dimensions (the web app, the worker, preflight). */
export function stepMemoryInputOf(config: RunConfig, dims: ModelDims, vocabSize: number): StepMemoryInput {
  return {
    dims,
    vocabSize,
    loraRank: config.policy.lora?.rank,
    reference: config.grpo.klCoef > 0,
    microBatch: Math.min(config.grpo.microBatchSize ?? config.grpo.minibatchSize, config.grpo.minibatchSize),
    samplingBatch: config.rollout.concurrency,
    optimizerState: config.policy.optimizerState,
    recomputeActivations: config.policy.recomputeActivations,
    frozenWeights: config.policy.frozenWeights,
  };
}

export interface StepMemoryEstimate {
  parameters: number;
  trainableParameters: number;
  bytes: { weights: number; gradients: number; optimizer: number; reference: number; activations: number; kvCache: number; total: number };
}

export function estimateStepMemory(input: StepMemoryInput): StepMemoryEstimate {
  const d = input.dims;
  const parameters = countParameters(d, input.vocabSize);
  const head = headDimOf(d);
  const q = d.numHeads * head;
  const kv = d.numKvHeads * head;
  const lora = input.loraRank
    ? d.numLayers * input.loraRank * (2 * (d.hiddenSize + q) + 2 * (d.hiddenSize + kv)) // q, o and k, v adapters
    : 0;
  const trainableParameters = input.loraRank ? lora : parameters;
  const T = d.maxPositions;
  const perLayer = 6 * d.hiddenSize + 2 * q + 2 * kv + 4 * d.intermediateSize;
  // with recomputation: every layer's input, plus one layer's activations and attention at a time
  const layersHeld = input.recomputeActivations ? 1 : d.numLayers;
  const perToken = (input.recomputeActivations ? d.numLayers * d.hiddenSize : 0) + layersHeld * perLayer + 3 * input.vocabSize;
  const frozenBytes = input.frozenWeights === "bf16" ? 2 : 4;
  const bytes = {
    weights: (input.loraRank ? frozenBytes : 4) * parameters + 4 * lora,
    gradients: 4 * trainableParameters,
    optimizer:
      input.optimizerState === "8bit" ? 2 * trainableParameters + 2 * 4 * Math.ceil(trainableParameters / 256) : 8 * trainableParameters,
    reference: input.reference ? (input.loraRank ? 4 * lora : frozenBytes * parameters) : 0,
    activations: 4 * input.microBatch * (T * perToken + layersHeld * d.numHeads * T * T),
    kvCache: 4 * 2 * d.numLayers * kv * T * Math.min(64, input.samplingBatch),
    total: 0,
  };
  // Sampling and the update do not overlap, so the larger of the two transient terms counts.
  bytes.total = bytes.weights + bytes.gradients + bytes.optimizer + bytes.reference + Math.max(bytes.activations, bytes.kvCache);
  return { parameters, trainableParameters, bytes };
}

/**
 * What the wasm backend's heap (4 GiB in all) can give one step, leaving room for TF.js's own buffers; a run
 * needing more trains on the cpu backend (trainer/backend/placement.ts).
 */
export const WASM_STEP_BUDGET_BYTES = 3.5 * GiB;

/**
 * The per-step budget: ROLLOUT_LAB_MAX_STEP_MEMORY_GB, default three quarters of this machine's RAM (steps past
 * the wasm heap train on the cpu backend, bounded by RAM; the rest is left to the database, the web app and the
 * operating system). The caller passes the machine's RAM (os.totalmem()): this module stays free of Node APIs.
 */
export function stepMemoryLimitBytes(env: Record<string, string | undefined>, totalMemoryBytes: number): number {
  const gb = readEnvVar("ROLLOUT_LAB_MAX_STEP_MEMORY_GB", env);
  return gb !== undefined ? gb * GiB : Math.floor((0.75 * totalMemoryBytes) / GiB) * GiB;
}

const gib = (b: number) => `${(b / GiB).toFixed(b < GiB ? 2 : 1)} GiB`;

/** One sentence saying what does not fit and what to change, or null when the step fits. */
export function stepMemoryProblem(estimate: StepMemoryEstimate, limitBytes: number, microBatch: number, context: number): string | null {
  if (estimate.bytes.total <= limitBytes) return null;
  const b = estimate.bytes;
  return (
    `One training step needs an estimated ${gib(b.total)} (weights ${gib(b.weights)}, gradients ${gib(b.gradients)}, optimizer ${gib(b.optimizer)}` +
    `${b.reference ? `, KL reference ${gib(b.reference)}` : ""}, activations ${gib(b.activations)} for micro-batches of ${microBatch} × ${context} tokens, ` +
    `sampling cache ${gib(b.kvCache)}) but the worker allows ${gib(limitBytes)} (ROLLOUT_LAB_MAX_STEP_MEMORY_GB). ` +
    `Lower grpo.microBatchSize or rollout.concurrency, use LoRA, or choose a smaller policy.model.`
  );
}
