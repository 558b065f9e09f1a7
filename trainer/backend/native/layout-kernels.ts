/**
 * Kernels for the data movement and transcendental ops that profiling one training step of the reference decoder
 * showed to be slow in tfjs-backend-wasm 4.22 (bench/matmul.ts prints the profile). Transpose, GatherV2, Exp and
 * Sum run on the cpu backend too (on its typed arrays, kernel-memory.ts), where the stock JavaScript loops are
 * slower still; Identity and Cast are wasm only (the cpu backend already shares buffers).
 * - Identity / same-dtype Cast: the engine clones every tensor saved for backprop through Identity, and every
 *   Multiply gradient casts float32 to float32; the stock wasm kernels copy the whole buffer each time. TF.js
 *   tensors are immutable, so sharing the buffer with a reference count (as the cpu backend's Identity and the
 *   wasm Reshape already do) is equivalent and free.
 * - Transpose, GatherV2, Exp: native loops in the addon, reading and writing the wasm heap in place (CPU ms per call
 *   stock -> native: transpose [2048,512] 12.4 -> ~3-7, gather 2048 rows 23.6 -> 0.12, exp [2048,256] 8.9 -> 2.6).
 *   Sum over leading axes (stock wasm transposes first) is one streaming pass.
 *   Sigmoid is left to the stock kernel: XNNPACK's vectorised version beat scalar expf (2.1 vs 6.5 ms).
 * Every kernel hands cases it does not cover (other dtypes, batchDims, ...) to the stock kernel unchanged.
 */
import * as tf from "@tensorflow/tfjs";
import type { BlasAddon } from "./addon";
import { kernelMemory, type KernelMemory } from "./kernel-memory";

type Params = Parameters<tf.KernelFunc>[0];
type Inputs = Record<string, tf.TensorInfo | undefined>;

function input(params: Params, name: string): tf.TensorInfo {
  const t = (params.inputs as Inputs)[name];
  if (!t) throw new Error(`kernel input ${name} is missing`);
  return t;
}

/** The memory of the backend running the kernel (every dtype handled here is 4 bytes). */
function memoryOf(params: Params): KernelMemory {
  const mem = kernelMemory(tf.getBackend(), params.backend);
  if (!mem) throw new Error(`native layout kernels do not run on the ${tf.getBackend()} backend`);
  return mem;
}

const FOUR_BYTE = new Set<tf.DataType>(["float32", "int32"]);
const size = (s: number[]) => s.reduce((p, d) => p * d, 1);

/** Shares the input's buffer instead of copying it. */
export function makeWasmIdentity(_addon: BlasAddon, fallback: tf.KernelFunc): tf.KernelFunc {
  return (params) => {
    const x = input(params, "x");
    if (x.dtype === "string") return fallback(params);
    memoryOf(params).incRef(x);
    return { dataId: x.dataId, shape: [...x.shape], dtype: x.dtype };
  };
}

export function makeWasmCast(_addon: BlasAddon, fallback: tf.KernelFunc): tf.KernelFunc {
  return (params) => {
    const x = input(params, "x");
    const dtype = (params.attrs as { dtype?: tf.DataType } | undefined)?.dtype;
    if (dtype !== x.dtype || x.dtype === "string" || x.dtype === "complex64") return fallback(params);
    memoryOf(params).incRef(x);
    return { dataId: x.dataId, shape: [...x.shape], dtype: x.dtype };
  };
}

export function makeTranspose(addon: BlasAddon, fallback: tf.KernelFunc): tf.KernelFunc {
  return (params) => {
    const x = input(params, "x");
    const perm = (params.attrs as { perm?: number[] } | undefined)?.perm;
    if (!perm || !FOUR_BYTE.has(x.dtype) || perm.length !== x.shape.length || x.shape.length > 8) return fallback(params);
    const mem = memoryOf(params);
    const out = mem.output(
      perm.map((p) => x.shape[p]),
      x.dtype as "float32" | "int32",
    );
    // Buffers looked up after the output exists: on wasm its malloc may have grown (and replaced) the heap.
    addon.transpose(...mem.at(x), ...mem.at(out), [...x.shape], [...perm]);
    return out;
  };
}

export function makeGather(addon: BlasAddon, fallback: tf.KernelFunc): tf.KernelFunc {
  return (params) => {
    const x = input(params, "x");
    const indices = input(params, "indices");
    const attrs = params.attrs as { axis?: number; batchDims?: number } | undefined;
    if ((attrs?.batchDims ?? 0) !== 0 || !FOUR_BYTE.has(x.dtype) || indices.dtype !== "int32") return fallback(params);
    const axis = tf.util.parseAxisParam(attrs?.axis ?? 0, x.shape)[0];
    const outer = size(x.shape.slice(0, axis));
    const inner = size(x.shape.slice(axis + 1));
    const n = size(indices.shape);
    const mem = memoryOf(params);
    const out = mem.output([...x.shape.slice(0, axis), ...indices.shape, ...x.shape.slice(axis + 1)], x.dtype as "float32" | "int32");
    const [xs, xOff] = mem.at(x);
    const ok = addon.gather(xs, xOff, outer, x.shape[axis], inner, ...mem.at(indices), n, ...mem.at(out));
    if (ok) return out;
    // An index out of range: let the stock kernel raise its own error message.
    mem.dispose(out);
    return fallback(params);
  };
}

function makeUnary(op: 0): (addon: BlasAddon, fallback: tf.KernelFunc) => tf.KernelFunc {
  return (addon, fallback) => (params) => {
    const x = input(params, "x");
    if (x.dtype !== "float32") return fallback(params);
    const mem = memoryOf(params);
    const out = mem.output([...x.shape], "float32");
    const [xs, xOff] = mem.at(x);
    const [os, oOff] = mem.at(out);
    if (!(xs instanceof Float32Array) || !(os instanceof Float32Array)) return fallback(params);
    addon.unary(op, xs, xOff, os, oOff, size(x.shape));
    return out;
  };
}

export const makeExp = makeUnary(0);

/** Sum over a leading block of axes (the gradient of a weight broadcast over rows); other reductions stay stock. */
export function makeSum(addon: BlasAddon, fallback: tf.KernelFunc): tf.KernelFunc {
  return (params) => {
    const x = input(params, "x");
    const attrs = params.attrs as { axis?: number | number[]; keepDims?: boolean } | undefined;
    if (x.dtype !== "float32" || attrs?.axis === undefined || x.shape.length === 0) return fallback(params);
    const axes = tf.util.parseAxisParam(attrs.axis, x.shape).sort((a, b) => a - b);
    const k = axes.length;
    if (k === 0 || k === x.shape.length || axes.some((a, i) => a !== i)) return fallback(params);
    const rest = x.shape.slice(k);
    const mem = memoryOf(params);
    const out = mem.output(attrs.keepDims ? [...x.shape.slice(0, k).map(() => 1), ...rest] : rest, "float32");
    const [xs, xOff] = mem.at(x);
    const [os, oOff] = mem.at(out);
    if (!(xs instanceof Float32Array) || !(os instanceof Float32Array)) return fallback(params);
    addon.sumRows(xs, xOff, size(x.shape.slice(0, k)), size(rest), os, oOff);
    return out;
  };
}
