/**
 * Differentiable building blocks shaped for the wasm backend (measured with bench:matmul): its matMul is fast only for
 * untransposed, unbatched 2-D operands (~10-25 GFLOP/s vs ~1 GFLOP/s otherwise), and `gather` has no gradient there
 * (UnsortedSegmentSum is missing). So every matMul here has a custom gradient that transposes explicitly, and index
 * lookups gather forward and scatter backward in plain JS (O(rows x width), far cheaper than a one-hot matMul).
 */
import * as tf from "@tensorflow/tfjs";
import { fusedOpsAvailable } from "./fused";

/**
 * Whether matMul may be given transposed operands: the native OpenBLAS kernels read them in place (sgemm's own
 * transpose flags). Measured on the cpu backend at 0.5B shapes: dy[512,4864]·W[896,4864]ᵀ 25.5 ms in place vs
 * 38.8 ms with the transpose copied first, xᵀ·dy no slower than copying; the same or better on wasm. The stock
 * wasm kernel is ~0.5 GFLOP/s on a transposed operand, so without the native kernels the copy is made explicitly.
 */
const transposesInPlace = (): boolean => fusedOpsAvailable();

/** a @ bᵀ (transposeB) or aᵀ @ b (transposeA), in place where the kernels allow, else through an explicit copy. */
export const matMulT = (a: tf.Tensor2D, b: tf.Tensor2D, transposeA: boolean, transposeB: boolean): tf.Tensor2D =>
  transposesInPlace()
    ? tf.matMul(a, b, transposeA, transposeB)
    : tf.matMul(transposeA ? tf.transpose(a) : a, transposeB ? tf.transpose(b) : b);

/** x[M,K] @ w[K,N], with dx = dy·wᵀ and dw = xᵀ·dy. */
export function mm(x: tf.Tensor2D, w: tf.Tensor2D): tf.Tensor2D {
  const f = tf.customGrad((a, b, save) => {
    const [xa, wb] = [a as tf.Tensor2D, b as tf.Tensor2D];
    (save as tf.GradSaveFunc)([xa, wb]);
    return {
      value: tf.matMul(xa, wb),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sx, sw] = saved as tf.Tensor2D[];
        const dy2 = dy as tf.Tensor2D;
        return [matMulT(dy2, sw, false, true), matMulT(sx, dy2, true, false)];
      },
    };
  });
  return f(x, w) as tf.Tensor2D;
}

/**
 * x[M,K] @ w[N,K]ᵀ with gradients for both (a trainable tied head reading the embedding [vocab, hidden]): no
 * [hidden, vocab] transpose of the embedding is built in the forward pass, nor its gradient transposed back.
 */
export function mmTransposed(x: tf.Tensor2D, w: tf.Tensor2D): tf.Tensor2D {
  const f = tf.customGrad((a, b, save) => {
    const [xa, wb] = [a as tf.Tensor2D, b as tf.Tensor2D];
    (save as tf.GradSaveFunc)([xa, wb]);
    return {
      value: matMulT(xa, wb, false, true),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sx, sw] = saved as tf.Tensor2D[];
        const dy2 = dy as tf.Tensor2D;
        return [tf.matMul(dy2, sw), matMulT(dy2, sx, true, false)];
      },
    };
  });
  return f(x, w) as tf.Tensor2D;
}

/**
 * x[M,K] @ w[K,N] for a weight that gets no gradient (a LoRA run's frozen base, a KL reference): the backward
 * pass computes dx only. With `mm` it would also compute dW = xᵀ·dy, as costly as the forward, and throw it away:
 * that made a 0.5B LoRA step nearly as slow as a full-parameter one. Give `wT` instead of `w` when the caller holds
 * the transpose already (a tied head's embedding [N,K]): both products then run on it, with no transpose at all.
 */
export function mmFrozen(x: tf.Tensor2D, weight: { w: tf.Tensor2D } | { wT: tf.Tensor2D }): tf.Tensor2D {
  const f = tf.customGrad((a) => {
    const xa = a as tf.Tensor2D;
    return {
      value: "w" in weight ? tf.matMul(xa, weight.w) : matMulT(xa, weight.wT, false, true),
      gradFunc: (dy: tf.Tensor) =>
        "w" in weight ? matMulT(dy as tf.Tensor2D, weight.w, false, true) : tf.matMul(dy as tf.Tensor2D, weight.wT),
    };
  });
  return f(x) as tf.Tensor2D;
}

/** Whether a weight gets a gradient: a trainable variable, or a tensor computed from one. */
export const isFrozen = (w: tf.Tensor): boolean => w instanceof tf.Variable && !w.trainable;

/**
 * Rows of `table` [V, D] picked by `ids`; gradient scatters-adds into a dense [V, D] (embedding lookup). A frozen
 * table is a plain gather: no [V, D] gradient (544 MB at Qwen2.5-0.5B's vocabulary) is built for it.
 */
export function lookupRows(table: tf.Tensor2D, ids: Int32Array): tf.Tensor2D {
  const [V, D] = table.shape;
  if (isFrozen(table)) return tf.tidy(() => tf.gather(table, tf.tensor1d(ids, "int32")));
  const idx = tf.tensor1d(ids, "int32");
  const f = tf.customGrad((t) => {
    return {
      value: tf.gather(t as tf.Tensor2D, idx),
      gradFunc: (dy: tf.Tensor) => {
        const g = dy.dataSync();
        const out = new Float32Array(V * D);
        for (let r = 0; r < ids.length; r++) {
          const base = ids[r] * D;
          const src = r * D;
          for (let c = 0; c < D; c++) out[base + c] += g[src + c];
        }
        return tf.tensor2d(out, [V, D]);
      },
    };
  });
  const y = f(table) as tf.Tensor2D;
  idx.dispose();
  return y;
}

/** values[r, ids[r]] for each row r of values [N, V]; gradient puts dy back at those positions (log-prob gather). */
export function pickColumns(values: tf.Tensor2D, ids: Int32Array): tf.Tensor1D {
  const [N, V] = values.shape;
  const flat = new Int32Array(N);
  for (let r = 0; r < N; r++) flat[r] = r * V + ids[r];
  const idx = tf.tensor1d(flat, "int32");
  const f = tf.customGrad((v) => {
    return {
      value: tf.gather(tf.reshape(v as tf.Tensor, [N * V]), idx),
      gradFunc: (dy: tf.Tensor) => {
        const g = dy.dataSync();
        const out = new Float32Array(N * V);
        for (let r = 0; r < N; r++) out[flat[r]] = g[r];
        return tf.tensor2d(out, [N, V]);
      },
    };
  });
  const y = f(values) as tf.Tensor1D;
  idx.dispose();
  return y;
}

/** RMSNorm (Zhang & Sennrich 2019), as LlamaRMSNorm: x / sqrt(mean(x^2) + eps) * weight. */
export function rmsNorm(x: tf.Tensor2D, weight: tf.Tensor1D, eps: number): tf.Tensor2D {
  const ms = tf.mean(tf.square(x), -1, true);
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(ms, eps))), weight);
}

/** Llama 3.1 / 3.2's rotary scaling (config.json rope_scaling with rope_type "llama3"). */
export interface Llama3RopeScaling {
  factor: number;
  lowFreqFactor: number;
  highFreqFactor: number;
  originalMaxPositions: number;
}

/**
 * The rotary inverse frequencies theta^(-2i/d), with Llama 3.1's scaling when given (transformers'
 * _compute_llama3_parameters): frequencies whose wavelength is shorter than original / highFreqFactor stay, those
 * longer than original / lowFreqFactor are divided by factor, and those between blend the two, weighted by
 * (original / wavelength - low) / (high - low) towards the unscaled one.
 */
export function rotaryFrequencies(headDim: number, theta: number, scaling?: Llama3RopeScaling): number[] {
  const inv = Array.from({ length: headDim / 2 }, (_, i) => Math.pow(theta, (-2 * i) / headDim));
  if (!scaling) return inv;
  const { factor, lowFreqFactor: low, highFreqFactor: high, originalMaxPositions: old } = scaling;
  return inv.map((f) => {
    const wavelength = (2 * Math.PI) / f;
    if (wavelength < old / high) return f;
    if (wavelength > old / low) return f / factor;
    const blend = (old / wavelength - low) / (high - low);
    return ((1 - blend) * f) / factor + blend * f;
  });
}

/**
 * Rotary tables as transformers' LlamaRotaryEmbedding builds them: the frequency vector (rotaryFrequencies)
 * repeated twice ("rotate_half" convention, not interleaved), so checkpoints from transformers need no permutation.
 */
export function ropeTables(
  maxPos: number,
  headDim: number,
  theta: number,
  scaling?: Llama3RopeScaling,
): { cos: Float32Array; sin: Float32Array } {
  const half = headDim / 2;
  const freqs = rotaryFrequencies(headDim, theta, scaling);
  const cos = new Float32Array(maxPos * headDim);
  const sin = new Float32Array(maxPos * headDim);
  for (let p = 0; p < maxPos; p++) {
    for (let i = 0; i < half; i++) {
      const a = p * freqs[i];
      const c = Math.cos(a);
      const s = Math.sin(a);
      cos[p * headDim + i] = c;
      cos[p * headDim + i + half] = c;
      sin[p * headDim + i] = s;
      sin[p * headDim + i + half] = s;
    }
  }
  return { cos, sin };
}

/** rotate_half as a signed permutation matrix, so it runs as one fast untransposed matMul instead of split+concat. */
export function rotateHalfMatrix(headDim: number): tf.Tensor2D {
  const half = headDim / 2;
  const r = new Float32Array(headDim * headDim);
  for (let i = 0; i < half; i++) {
    r[(i + half) * headDim + i] = -1; // out[i] = -x[i + half]
    r[i * headDim + i + half] = 1; // out[i + half] = x[i]
  }
  return tf.tensor2d(r, [headDim, headDim]);
}

/**
 * Applies rotary positions to x [rows, heads*headDim] whose rows are positions `pos` (one entry per row):
 * x*cos + rotate_half(x)*sin, per head.
 */
export function applyRope(
  x: tf.Tensor2D,
  heads: number,
  headDim: number,
  cosRows: tf.Tensor2D,
  sinRows: tf.Tensor2D,
  rot: tf.Tensor2D,
): tf.Tensor2D {
  const rows = x.shape[0];
  const xh = tf.reshape(x, [rows * heads, headDim]) as tf.Tensor2D;
  const rotated = tf.reshape(mm(xh, rot), [rows, heads, headDim]);
  const x3 = tf.reshape(x, [rows, heads, headDim]);
  const c = tf.reshape(cosRows, [rows, 1, headDim]);
  const s = tf.reshape(sinRows, [rows, 1, headDim]);
  return tf.reshape(tf.add(tf.mul(x3, c), tf.mul(rotated, s)), [rows, heads * headDim]) as tf.Tensor2D;
}
