/**
 * Per-token log-probabilities and entropies of whole sequences. Arrays are aligned with the token ids: entry t is
 * log p(ids[t] | ids[<t]); entry 0 is 0 (the first token is never predicted), so loss masks built for ids apply as-is.
 */
import * as tf from "@tensorflow/tfjs";
import type { DecoderLM } from "./model";
import { pickColumns } from "./ops";
import { fusedOpsAvailable, fusedTokenLogProbs } from "./fused";

export interface TokenBatch {
  /** [B, T] row-major, right-padded. */
  ids: Int32Array;
  B: number;
  T: number;
}

/**
 * Differentiable: {logp [B, T], entropy [B, T]} for a batch (entropy only when asked: it costs a softmax pass).
 * `temperature`: the sampling temperature the tokens were drawn at; logits are divided by it, as verl does for the
 * old, current and reference log-probs, so the PPO ratio compares the distribution that was actually sampled
 * (0, greedy decoding, has no distribution and counts as 1).
 */
export function tokenLogProbs(
  model: DecoderLM,
  batch: TokenBatch,
  withEntropy = false,
  temperature = 1,
): { logp: tf.Tensor2D; entropy?: tf.Tensor2D } {
  const { ids, B, T } = batch;
  const inputs = new Int32Array(B * (T - 1));
  const targets = new Int32Array(B * (T - 1));
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T - 1; t++) {
      inputs[b * (T - 1) + t] = ids[b * T + t];
      targets[b * (T - 1) + t] = ids[b * T + t + 1];
    }
  }
  const { logits: raw } = model.forward(inputs, B, T - 1);
  const logits = (temperature > 0 && temperature !== 1 ? tf.div(raw, temperature) : raw) as typeof raw;
  const pad = tf.zeros([B, 1]);
  const alignRows = (x: tf.Tensor) => tf.concat([pad, tf.reshape(x, [B, T - 1])], 1) as tf.Tensor2D;
  if (fusedOpsAvailable()) {
    const { logp, entropy } = fusedTokenLogProbs(logits, targets);
    return withEntropy ? { logp: alignRows(logp), entropy: alignRows(entropy) } : { logp: alignRows(logp) };
  }
  const logSm = tf.logSoftmax(logits);
  const logp = alignRows(pickColumns(logSm as tf.Tensor2D, targets));
  if (!withEntropy) return { logp };
  return { logp, entropy: alignRows(tf.neg(tf.sum(tf.mul(tf.exp(logSm), logSm), -1))) };
}

/** Right-pads sequences into one batch (pad id 0: padded positions are always masked out of losses). */
export function padBatch(seqs: number[][], padTo?: number): TokenBatch {
  const T = Math.max(padTo ?? 0, ...seqs.map((s) => s.length), 2);
  const ids = new Int32Array(seqs.length * T);
  seqs.forEach((s, b) => ids.set(s, b * T));
  return { ids, B: seqs.length, T };
}

/** Pads per-token number arrays to [B, T] (zeros after each row's end). */
export function padMatrix(rows: number[][], T: number): Float32Array {
  const out = new Float32Array(rows.length * T);
  rows.forEach((r, b) => out.set(r.slice(0, T), b * T));
  return out;
}

/** Non-differentiable per-token log-probs (old-policy / reference log-probs), in chunks of `batchSize` sequences. */
export function computeLogProbs(model: DecoderLM, seqs: number[][], batchSize = 8, temperature = 1): number[][] {
  const out: number[][] = [];
  const step = chunkSize(model, seqs, batchSize);
  for (let i = 0; i < seqs.length; i += step) out.push(...chunkLogProbs(model, seqs.slice(i, i + step), temperature));
  return out;
}

/**
 * Sequences per forward pass: at most `batchSize`, fewer for long sequences, whose attention probabilities
 * (heads × T × T floats per sequence and layer, all alive until the pass ends) would not fit the heap.
 */
function chunkSize(model: DecoderLM, seqs: number[][], batchSize: number): number {
  const T = Math.max(1, ...seqs.map((s) => s.length));
  const perSequence = model.config.numLayers * model.config.numHeads * T * T * 4;
  return Math.max(1, Math.min(batchSize, Math.floor(ATTENTION_BUDGET_BYTES / perSequence)));
}

/** Attention probabilities one log-prob pass may hold (the wasm heap is 4 GiB in all). */
const ATTENTION_BUDGET_BYTES = 512 * 2 ** 20;

/**
 * computeLogProbs for the worker: yields to the event loop between chunks (lease heartbeats, cancel requests) and
 * stops with the abort reason once `signal` fires.
 */
export async function computeLogProbsYielding(
  model: DecoderLM,
  seqs: number[][],
  signal?: AbortSignal,
  batchSize = 8,
  temperature = 1,
): Promise<number[][]> {
  const out: number[][] = [];
  const step = chunkSize(model, seqs, batchSize);
  for (let i = 0; i < seqs.length; i += step) {
    await new Promise((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    out.push(...chunkLogProbs(model, seqs.slice(i, i + step), temperature));
  }
  return out;
}

function chunkLogProbs(model: DecoderLM, chunk: number[][], temperature: number): number[][] {
  const batch = padBatch(chunk);
  const t = tf.tidy(() => tokenLogProbs(model, batch, false, temperature).logp);
  const data = t.dataSync() as Float32Array;
  t.dispose();
  return chunk.map((s, b) => Array.from(data.subarray(b * batch.T, b * batch.T + s.length)));
}
