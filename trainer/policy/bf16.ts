/**
 * Weights that get no gradient, stored as bfloat16 (`policy.frozenWeights: "bf16"`): a LoRA run's frozen base and
 * a full-parameter run's KL reference. Half the bytes of float32, the same exponent range, 8 significant bits
 * (relative rounding error ≤ 2⁻⁸) — the precision verl and TRL keep reference policies in on GPUs. TF.js has no
 * 16-bit dtype, so a matrix is an int32 tensor holding two values per element, and only native kernels
 * (native/blas/src/bf16.c) read it: they widen a panel at a time just before OpenBLAS multiplies it, so a float32
 * copy of the matrix never exists. Without those kernels the weights stay float32 (`bf16Available`).
 */
import * as tf from "@tensorflow/tfjs";
import { FUSED, type Bf16Attrs } from "../backend/native/fused-kernels";
import { loadBlasAddon } from "../backend/native/addon";

/** Whether the bfloat16 kernels are registered for the backend in use and the addon has them. */
export function bf16Available(): boolean {
  return tf.getKernel(FUSED.bf16MatMul, tf.getBackend()) !== undefined && typeof loadBlasAddon().addon?.bf16MatMul === "function";
}

const run = (name: string, inputs: tf.NamedTensorMap, attrs: object) => tf.engine().runKernel(name, inputs, attrs as tf.NamedAttrMap);

/** A [rows, cols] matrix in bfloat16: `packed` holds ceil(rows·cols / 2) int32s, value i in its i-th 16 bits. */
export class Bf16Matrix {
  private constructor(
    readonly packed: tf.Tensor1D,
    readonly shape: [number, number],
  ) {}

  /** Rounds a float32 matrix to bfloat16 (to nearest, ties to even); the caller keeps `x`. */
  static encode(x: tf.Tensor2D): Bf16Matrix {
    const packed = tf.tidy(() => run(FUSED.bf16Encode, { x: x.reshape([x.size]) }, {}) as tf.Tensor1D);
    return new Bf16Matrix(tf.keep(packed), [x.shape[0], x.shape[1]]);
  }

  copy(): Bf16Matrix {
    return new Bf16Matrix(tf.keep(this.packed.clone()), this.shape);
  }

  private get attrs(): Bf16Attrs {
    return { rows: this.shape[0], cols: this.shape[1] };
  }

  /** The matrix widened to float32 (a new tensor: checkpoints, tests). */
  decode(): tf.Tensor2D {
    return run(FUSED.bf16Decode, { w: this.packed }, this.attrs) as tf.Tensor2D;
  }

  get bytes(): number {
    return this.packed.size * 4;
  }

  dispose(): void {
    this.packed.dispose();
  }

  /**
   * x[M, K] @ W for W [K, N], or x @ Wᵀ for W [N, K] (`transposed`: a tied head reading the embedding [vocab, d]).
   * Differentiable in x only: the backward pass is the same kernel the other way round (dx = dy @ Wᵀ), and W,
   * being frozen, gets no gradient.
   */
  matMul(x: tf.Tensor2D, transposed = false): tf.Tensor2D {
    const product = (a: tf.Tensor, t: boolean) =>
      run(FUSED.bf16MatMul, { x: a, w: this.packed }, { ...this.attrs, transposeW: t }) as tf.Tensor2D;
    const op = tf.customGrad((xi) => ({
      value: product(xi as tf.Tensor, transposed),
      gradFunc: (dy: tf.Tensor) => product(dy, !transposed),
    }));
    return op(x) as tf.Tensor2D;
  }

  /** Rows `ids` widened to float32 [ids.length, cols] (an embedding lookup; no gradient). */
  rows(ids: Int32Array): tf.Tensor2D {
    return tf.tidy(() => run(FUSED.bf16Gather, { w: this.packed, ids: tf.tensor1d(ids, "int32") }, this.attrs) as tf.Tensor2D);
  }
}
