/**
 * Add, Sub and Multiply for the cpu backend's common float32 cases — equal shapes, a scalar, a vector broadcast
 * over the rows — as plain loops over the typed arrays. The stock kernels go through a general broadcasting path
 * that took ~15 ms per [508, 896] add in a 0.5B step (306 of them, 4.8 s of a 25 s LoRA step: the gradient sums
 * and residuals), against well under a millisecond for the loop. Everything else goes to the stock kernel.
 */
import type * as tf from "@tensorflow/tfjs";
import type { BlasAddon } from "./addon";
import { uninitialisedArray } from "./kernel-memory";

interface CpuBackend {
  data: { get(id: object): { values?: unknown } | undefined };
  makeTensorInfo(shape: number[], dtype: tf.DataType, values: Float32Array): tf.TensorInfo;
}

type Op = (x: number, y: number) => number;

/** Op codes of the addon's `binary` (native/blas/src/layout.h). */
const BINARY_OP = { add: 0, sub: 1, mul: 2 } as const;
const NATIVE_MIN = 4096;

const size = (s: number[]) => s.reduce((p, d) => p * d, 1);
const sameShape = (a: number[], b: number[]) => a.length === b.length && a.every((d, i) => d === b[i]);

/** A binary kernel with the fast paths; `op` is inlined by each caller below for speed. */
function makeBinary(
  nativeOp: number,
  loopSame: (a: Float32Array, b: Float32Array, out: Float32Array) => void,
  loopRow: (a: Float32Array, b: Float32Array, out: Float32Array, cols: number, bIsRow: boolean) => void,
  op: Op,
) {
  return (addon: BlasAddon, fallback: tf.KernelFunc): tf.KernelFunc =>
    (params) => {
      const { a, b } = params.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
      if (a.dtype !== "float32" || b.dtype !== "float32") return fallback(params);
      const backend = params.backend as CpuBackend;
      const av = backend.data.get(a.dataId)?.values;
      const bv = backend.data.get(b.dataId)?.values;
      if (!(av instanceof Float32Array) || !(bv instanceof Float32Array)) return fallback(params);
      if (sameShape(a.shape, b.shape)) {
        const out = uninitialisedArray(av.length, "float32") as Float32Array;
        // native past a few thousand values: a vectorised C loop, ~4x the JavaScript one (an addon built before it
        // existed has none)
        if (av.length >= NATIVE_MIN && addon.binary) addon.binary(nativeOp, av, 0, bv, 0, out, 0, av.length);
        else loopSame(av, bv, out);
        return backend.makeTensorInfo([...a.shape], "float32", out);
      }
      // One operand a scalar, or [1, …, 1, N] against the other's last axis N (a bias, a norm weight), of no
      // higher rank: then the result has the other operand's shape.
      const broadcastsInto = (small: tf.TensorInfo, big: tf.TensorInfo) =>
        small.shape.length <= big.shape.length &&
        (size(small.shape) === 1 || (small.shape.slice(0, -1).every((d) => d === 1) && small.shape.at(-1) === big.shape.at(-1)));
      const bSmall = broadcastsInto(b, a);
      const aSmall = !bSmall && broadcastsInto(a, b);
      if (!bSmall && !aSmall) return fallback(params);
      const big = bSmall ? a : b;
      const [bigV, smallV] = bSmall ? [av, bv] : [bv, av];
      const out = uninitialisedArray(bigV.length, "float32") as Float32Array;
      if (smallV.length === 1) {
        const s = smallV[0];
        for (let i = 0; i < out.length; i++) out[i] = bSmall ? op(bigV[i], s) : op(s, bigV[i]);
      } else {
        loopRow(bigV, smallV, out, smallV.length, bSmall);
      }
      return backend.makeTensorInfo([...big.shape], "float32", out);
    };
}

export const makeCpuAdd = makeBinary(
  BINARY_OP.add,
  (a, b, out) => {
    for (let i = 0; i < out.length; i++) out[i] = a[i] + b[i];
  },
  (big, row, out, cols) => {
    for (let i = 0; i < out.length; i += cols) for (let j = 0; j < cols; j++) out[i + j] = big[i + j] + row[j];
  },
  (x, y) => x + y,
);

export const makeCpuSub = makeBinary(
  BINARY_OP.sub,
  (a, b, out) => {
    for (let i = 0; i < out.length; i++) out[i] = a[i] - b[i];
  },
  (big, row, out, cols, rowIsB) => {
    if (rowIsB) for (let i = 0; i < out.length; i += cols) for (let j = 0; j < cols; j++) out[i + j] = big[i + j] - row[j];
    else for (let i = 0; i < out.length; i += cols) for (let j = 0; j < cols; j++) out[i + j] = row[j] - big[i + j];
  },
  (x, y) => x - y,
);

export const makeCpuMultiply = makeBinary(
  BINARY_OP.mul,
  (a, b, out) => {
    for (let i = 0; i < out.length; i++) out[i] = a[i] * b[i];
  },
  (big, row, out, cols) => {
    for (let i = 0; i < out.length; i += cols) for (let j = 0; j < cols; j++) out[i + j] = big[i + j] * row[j];
  },
  (x, y) => x * y,
);
