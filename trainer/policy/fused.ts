/**
 * Differentiable fused decoder ops over the native kernels of trainer/backend/native/fused-kernels.ts. Each one is
 * a single kernel forward and a single kernel backward where the stock composition runs 3-20 TF.js ops (and as
 * many again for the gradient). They exist only where those kernels are registered (wasm backend with the native
 * addon); `fusedOpsAvailable()` tells callers (model.ts, logprobs.ts, optimizer.ts) whether to use them or the
 * stock compositions, which compute the same values (fused.test.ts compares both, values and gradients).
 */
import * as tf from "@tensorflow/tfjs";
import { FUSED, nativeAdamWInPlace, nativeSumSquares, type AttentionAttrs } from "../backend/native/fused-kernels";
import { loadBlasAddon } from "../backend/native/addon";

/** Whether the fused kernels are registered for the backend in use (checked per call: a map lookup). */
export function fusedOpsAvailable(): boolean {
  return tf.getKernel(FUSED.attention, tf.getBackend()) !== undefined;
}

const run = (name: string, inputs: tf.NamedTensorMap, attrs: object = {}) => tf.engine().runKernel(name, inputs, attrs as tf.NamedAttrMap);

/** LlamaRMSNorm over rows of x [R, D]. */
export function fusedRmsNorm(x: tf.Tensor2D, weight: tf.Tensor1D, eps: number): tf.Tensor2D {
  const op = tf.customGrad((xi, wi, save) => {
    (save as tf.GradSaveFunc)([xi as tf.Tensor, wi as tf.Tensor]);
    return {
      value: run(FUSED.rmsNorm, { x: xi as tf.Tensor, w: wi as tf.Tensor }, { eps }) as tf.Tensor,
      gradFunc: (dy: tf.Tensor, [sx, sw]: tf.Tensor[]) => run(FUSED.rmsNormGrad, { dy, x: sx, w: sw }, { eps }) as tf.Tensor[],
    };
  });
  return op(x, weight) as tf.Tensor2D;
}

/**
 * Rotary positions on x [rows, heads*headDim]; `pos` [rows] int32 holds each row's position. The gradient is the
 * inverse rotation of dy (sign -1), so only the positions and tables are needed, not x.
 */
export function fusedRope(x: tf.Tensor2D, heads: number, pos: tf.Tensor1D, cos: tf.Tensor2D, sin: tf.Tensor2D): tf.Tensor2D {
  const op = tf.customGrad((xi, save) => {
    // saved, not captured: the forward pass's intermediates are disposed before backprop starts
    (save as tf.GradSaveFunc)([pos]);
    return {
      value: run(FUSED.rope, { x: xi as tf.Tensor, pos, cos, sin }, { heads, sign: 1 }) as tf.Tensor,
      gradFunc: (dy: tf.Tensor, [sp]: tf.Tensor[]) => run(FUSED.rope, { x: dy, pos: sp, cos, sin }, { heads, sign: -1 }) as tf.Tensor,
    };
  });
  return op(x) as tf.Tensor2D;
}

/** SwiGLU: silu(gate) * up. */
export function fusedSwiGlu(gate: tf.Tensor2D, up: tf.Tensor2D): tf.Tensor2D {
  const op = tf.customGrad((g, u, save) => {
    (save as tf.GradSaveFunc)([g as tf.Tensor, u as tf.Tensor]);
    return {
      value: run(FUSED.swiGlu, { gate: g as tf.Tensor, up: u as tf.Tensor }) as tf.Tensor,
      gradFunc: (dy: tf.Tensor, [sg, su]: tf.Tensor[]) => run(FUSED.swiGluGrad, { dy, gate: sg, up: su }) as tf.Tensor[],
    };
  });
  return op(gate, up) as tf.Tensor2D;
}

export interface FusedAttentionShape {
  B: number;
  T: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  /** Cached positions before these T queries (0 in training). */
  past: number;
}

/**
 * Causal grouped-query attention read straight from the projection layouts: q [B*T, heads*hd] (rotary applied),
 * k/v [B*(past+T), kvHeads*hd] (cached keys first), keyMask [B, past+T] (1 real, 0 padding) or undefined.
 * Returns [B*T, heads*hd]. No transposes: the kernel addresses each head with strided BLAS calls.
 */
export function fusedAttention(q: tf.Tensor2D, k: tf.Tensor2D, v: tf.Tensor2D, s: FusedAttentionShape, keyMask?: tf.Tensor2D): tf.Tensor2D {
  const attrs: AttentionAttrs = {
    B: s.B,
    T: s.T,
    Tk: s.past + s.T,
    heads: s.heads,
    kvHeads: s.kvHeads,
    headDim: s.headDim,
    past: s.past,
    scale: 1 / Math.sqrt(s.headDim),
  };
  const op = tf.customGrad((qi, ki, vi, save) => {
    const inputs: tf.NamedTensorMap = { q: qi as tf.Tensor, k: ki as tf.Tensor, v: vi as tf.Tensor };
    if (keyMask) inputs.keyMask = keyMask;
    const [out, probs] = run(FUSED.attention, inputs, attrs) as tf.Tensor[];
    (save as tf.GradSaveFunc)([qi as tf.Tensor, ki as tf.Tensor, vi as tf.Tensor, probs]);
    return {
      value: out,
      gradFunc: (dy: tf.Tensor, [sq, sk, sv, sp]: tf.Tensor[]) =>
        run(FUSED.attentionGrad, { dy, q: sq, k: sk, v: sv, probs: sp }, attrs) as tf.Tensor[],
    };
  });
  return op(q, k, v) as tf.Tensor2D;
}

/**
 * log p(target[r]) and the entropy of softmax(logits[r]) for logits [N, V], in one pass each way (no [N, V]
 * log-softmax tensor is kept). Returns { logp [N], entropy [N] }, both differentiable.
 */
export function fusedTokenLogProbs(logits: tf.Tensor2D, targets: Int32Array): { logp: tf.Tensor1D; entropy: tf.Tensor1D } {
  const op = tf.customGrad((z, save) => {
    const target = tf.tensor1d(targets, "int32");
    (save as tf.GradSaveFunc)([z as tf.Tensor, target]);
    return {
      value: run(FUSED.tokenLogProb, { logits: z as tf.Tensor, target }) as tf.Tensor,
      gradFunc: (dy: tf.Tensor, [sz, st]: tf.Tensor[]) => run(FUSED.tokenLogProbGrad, { logits: sz, target: st, dy }) as tf.Tensor,
    };
  });
  const [logp, entropy] = tf.unstack(op(logits) as tf.Tensor2D) as tf.Tensor1D[];
  return { logp, entropy };
}

export interface AdamWStep {
  lr: number;
  b1: number;
  b2: number;
  eps: number;
  /** Decoupled weight decay for this variable (0 for norms and biases). */
  wd: number;
  /** Bias corrections 1 - beta^t. */
  bc1: number;
  bc2: number;
  /** Gradient scale from global-norm clipping (1 = none). */
  clip: number;
}

/** One AdamW step for one variable: new [param, m, v] (not differentiable; the optimizer assigns them). */
export function fusedAdamW(p: tf.Tensor, m: tf.Tensor, v: tf.Tensor, g: tf.Tensor, hp: AdamWStep): [tf.Tensor, tf.Tensor, tf.Tensor] {
  return run(FUSED.adamW, { p, m, v, g }, hp) as [tf.Tensor, tf.Tensor, tf.Tensor];
}

/**
 * The same step written into p, m and v's own buffers; false (nothing done) where that is not safe or possible:
 * another tensor shares one of the buffers (a KL reference before the first step), or no native kernel.
 */
export function fusedAdamWInPlace(p: tf.Tensor, m: tf.Tensor, v: tf.Tensor, g: tf.Tensor, hp: AdamWStep): boolean {
  return nativeAdamWInPlace(loadBlasAddon().addon, p, m, v, g, hp);
}

/** AdamW's moments in 8 bits (codes packed four to an int32, one float scale per 256 values each). */
export interface Moments8 {
  mq: tf.Tensor;
  ms: tf.Tensor;
  vq: tf.Tensor;
  vs: tf.Tensor;
}

/** Whether the 8-bit AdamW kernels are registered (an addon built before they existed has none). */
export function fusedAdamW8Available(): boolean {
  return tf.getKernel(FUSED.adamW8, tf.getBackend()) !== undefined && typeof loadBlasAddon().addon?.adamw8 === "function";
}

/** One AdamW step with 8-bit moments: [p', moments']. */
export function fusedAdamW8(p: tf.Tensor, g: tf.Tensor, mom: Moments8, hp: AdamWStep): [tf.Tensor, Moments8] {
  const [p2, mq, ms, vq, vs] = run(FUSED.adamW8, { p, g, ...mom }, hp) as tf.Tensor[];
  return [p2, { mq, ms, vq, vs }];
}

/** 8-bit moments decoded to float32 [m, v] of `shape` (checkpoints store them so). */
export function decodeMoments8(mom: Moments8, shape: number[]): [tf.Tensor, tf.Tensor] {
  const n = shape.reduce((a, b) => a * b, 1);
  const [m, v] = run(FUSED.adamW8Decode, { ...mom }, { n }) as tf.Tensor[];
  return [m.reshape(shape), v.reshape(shape)];
}

/** float32 moments encoded in 8 bits (a fresh optimizer's zeros, or a checkpoint's moments). */
export function encodeMoments8(m: tf.Tensor, v: tf.Tensor): Moments8 {
  const [mq, ms, vq, vs] = run(FUSED.adamW8Encode, { m, v }) as tf.Tensor[];
  return { mq, ms, vq, vs };
}

/** Sum of squares over float32 tensors in one native pass each (global gradient norm); null without the kernels. */
export function fusedSumOfSquares(tensors: tf.Tensor[]): number | null {
  return fusedOpsAvailable() ? nativeSumSquares(loadBlasAddon().addon, tensors) : null;
}
