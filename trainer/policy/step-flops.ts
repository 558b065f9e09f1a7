/**
 * The arithmetic of one training step's matrix products, counted from the model's shape: what any implementation of
 * the step has to multiply, whatever its library. Divided by a core's measured peak (native/blas/src/peak.c) it is
 * the step's floor: the CPU time no code doing this arithmetic in that precision can go below on that CPU. The
 * speed benches print it beside their figures (bench/trainer-sizes.ts) so a goal set below it shows as such.
 *
 * Counted: every projection's forward, input gradient and (when its weight trains) weight gradient; attention's two
 * batched products per head forward and four backward, over the full causal square as every dense kernel computes
 * it; the head's. Not counted: element-wise work, norms, softmax, the optimizer (memory-bound, not products).
 */
import type { ModelConfig } from "./config";

export interface StepShape {
  config: ModelConfig;
  /** Sequences per step. */
  batch: number;
  /** Tokens per sequence; a step scores context - 1 positions (the last token is only a target). */
  context: number;
  /** LoRA rank on q, k, v and o (the base and the embedding frozen), as bench:trainer's LoRA rows train. */
  loraRank?: number;
  /** Activation recomputation: the layers' forward runs again during the backward. */
  recompute?: boolean;
  /** A frozen reference model's forward over the same batch (GRPO's KL term). */
  reference?: boolean;
}

export interface StepFlops {
  /** Every product's GFLOP in one step (multiply and add counted as two). */
  gflop: number;
  /** The part that is attention's score and value products. */
  attentionGflop: number;
  /** The part that is the output head's (logits, their input and weight gradients). */
  headGflop: number;
}

/** One projection [in, out] over `rows` rows: forward 2·rows·in·out, and the same again per gradient taken. */
const projection = (rows: number, inDim: number, outDim: number, passes: number) => 2 * rows * inDim * outDim * passes;

export function stepProductFlops(s: StepShape): StepFlops {
  const c = s.config;
  const headDim = c.headDim ?? c.hiddenSize / c.numHeads;
  const d = c.hiddenSize;
  const qOut = c.numHeads * headDim;
  const kvOut = c.numKvHeads * headDim;
  const positions = s.context - 1;
  const rows = s.batch * positions;
  const lora = s.loraRank ?? 0;
  const again = (s.recompute ? 1 : 0) + (s.reference ? 1 : 0); // extra forwards of the layers
  // Full training: forward, input gradient, weight gradient. LoRA: the base's weight gradients are never formed.
  const basePasses = (lora ? 2 : 3) + again;
  // An adapter's x·A and (x·A)·B: forward and both gradients, the forward again under recomputation (the reference
  // is the base model).
  const adapterPasses = 3 + (s.recompute ? 1 : 0);
  const layerProjections: [number, number, boolean][] = [
    [d, qOut, true],
    [d, kvOut, true],
    [d, kvOut, true],
    [qOut, d, true],
    [d, c.intermediateSize, false],
    [d, c.intermediateSize, false],
    [c.intermediateSize, d, false],
  ];
  let layer = 0;
  for (const [inDim, outDim, adapted] of layerProjections) {
    layer += projection(rows, inDim, outDim, basePasses);
    if (lora && adapted) layer += projection(rows, inDim, lora, adapterPasses) + projection(rows, lora, outDim, adapterPasses);
  }
  let layers = layer * c.numLayers;
  if (lora) {
    // With the embedding frozen nothing needs the first layer's input gradient through q, k and v: their frozen
    // base products skip it. (Their adapters' x·A still form it, ops.ts's mm returning both gradients: 3 products of
    // rank width, 0.004% of a 0.5B LoRA step, counted since they run.)
    layers -= projection(rows, d, qOut + 2 * kvOut, 1);
  }
  // Per head and sequence: S = Q·Kᵀ and O = P·V forward; dP = dO·Vᵀ, dV = Pᵀ·dO, dQ = dS·K, dK = dSᵀ·Q backward.
  const attentionProduct = 2 * positions * positions * headDim;
  const attention = c.numLayers * s.batch * c.numHeads * attentionProduct * (6 + 2 * again);
  // The head: logits forward, their input gradient, and the weight gradient when the table trains; it is not
  // recomputed (only the layers are).
  const head = projection(rows, d, c.vocabSize, (lora ? 2 : 3) + (s.reference ? 1 : 0));
  const total = layers + attention + head;
  return { gflop: total / 1e9, attentionGflop: attention / 1e9, headGflop: head / 1e9 };
}
