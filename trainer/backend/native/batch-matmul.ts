/**
 * TF.js `BatchMatMul` kernels on OpenBLAS sgemm for the `cpu` and `wasm` backends. Same contract as the stock
 * kernels (tfjs-backend-cpu/-wasm kernels/BatchMatMul): operands of rank >= 2, transposeA/transposeB, and batch
 * dimensions where one side has a single matrix broadcast over the other. Anything else (int32 operands, batch
 * shapes like [2,1] x [1,3]) is handed to the stock kernel so behaviour never changes, only speed.
 */
import * as tf from "@tensorflow/tfjs";
import type { BlasAddon } from "./addon";
import { bf16WeightCacheEnabled, roundedWeight } from "./bf16-weight-cache";
import { uninitialisedArray } from "./kernel-memory";

type Shape = number[];
type DataId = object;

export interface MatMulPlan {
  batch: number;
  M: number;
  N: number;
  K: number;
  /** Element distance between consecutive matrices of a / b (0 = broadcast). */
  aStride: number;
  bStride: number;
  outShape: Shape;
}

const size = (s: Shape) => s.reduce((p, d) => p * d, 1);

/** Geometry of a BatchMatMul, or null when the batch shapes need a broadcast the BLAS path does not do. */
export function planBatchMatMul(aShape: Shape, bShape: Shape, transposeA: boolean, transposeB: boolean): MatMulPlan | null {
  const ra = aShape.length;
  const rb = bShape.length;
  if (ra < 2 || rb < 2) return null;
  const M = transposeA ? aShape[ra - 1] : aShape[ra - 2];
  const Ka = transposeA ? aShape[ra - 2] : aShape[ra - 1];
  const Kb = transposeB ? bShape[rb - 1] : bShape[rb - 2];
  const N = transposeB ? bShape[rb - 2] : bShape[rb - 1];
  if (Ka !== Kb) {
    throw new Error(
      `Error in matMul: inner shapes (${Ka}) and (${Kb}) of Tensors with shapes ${aShape} and ${bShape} and ` +
        `transposeA=${transposeA} and transposeB=${transposeB} must match.`,
    );
  }
  const outerA = aShape.slice(0, -2);
  const outerB = bShape.slice(0, -2);
  const batchA = size(outerA);
  const batchB = size(outerB);
  const batch = Math.max(batchA, batchB);
  // Only "same batch" or "one side is a single matrix": the cases where TF.js's bi % batchDim indexing is exact.
  if ((batchA !== batch && batchA !== 1) || (batchB !== batch && batchB !== 1)) return null;
  const outOuter = tf.backend_util.assertAndGetBroadcastShape(outerA, outerB);
  return {
    batch,
    M,
    N,
    K: Ka,
    aStride: batchA === 1 ? 0 : M * Ka,
    bStride: batchB === 1 ? 0 : Ka * N,
    outShape: [...outOuter, M, N],
  };
}

interface MatMulArgs {
  inputs: { a?: tf.TensorInfo; b?: tf.TensorInfo };
  attrs?: { transposeA?: boolean; transposeB?: boolean };
}

function readArgs(params: Parameters<tf.KernelFunc>[0]): {
  a: tf.TensorInfo;
  b: tf.TensorInfo;
  ta: boolean;
  tb: boolean;
} {
  const { inputs, attrs } = params as unknown as MatMulArgs;
  if (!inputs.a || !inputs.b) throw new Error("BatchMatMul needs inputs a and b");
  return { a: inputs.a, b: inputs.b, ta: Boolean(attrs?.transposeA), tb: Boolean(attrs?.transposeB) };
}

/** The parts of MathBackendCPU this kernel touches. */
interface CpuBackendLike {
  data: { get(id: DataId): { values?: unknown } };
  makeTensorInfo(shape: Shape, dtype: tf.DataType, values: Float32Array): tf.TensorInfo;
}

/** The parts of BackendWasm this kernel touches (tfjs-backend-wasm backend_wasm.js). */
interface WasmBackendLike {
  dataIdMap: { get(id: DataId): { memoryOffset: number } | undefined };
  makeOutput(shape: Shape, dtype: tf.DataType): tf.TensorInfo;
  wasm: { HEAPF32: Float32Array };
}

/** Under bf16 compute, a weight's bf16 copy for a product that runs on oneDNN (bf16-weight-cache.ts), else null. */
function roundedWeightFor(addon: BlasAddon, plan: MatMulPlan, dataId: DataId, bv: Float32Array): Int32Array | null {
  if (!addon.gemmRoundedB || !addon.bf16Thin || !bf16WeightCacheEnabled() || addon.compute?.() !== "bf16") return null;
  if (addon.bf16Thin(plan.M, plan.N, plan.K)) return null;
  return roundedWeight(addon, dataId, bv);
}

export function makeCpuBatchMatMul(addon: BlasAddon, fallback: tf.KernelFunc): tf.KernelFunc {
  return (params) => {
    const { a, b, ta, tb } = readArgs(params);
    const plan = a.dtype === "float32" && b.dtype === "float32" ? planBatchMatMul(a.shape, b.shape, ta, tb) : null;
    const backend = params.backend as CpuBackendLike;
    const av = backend.data.get(a.dataId).values;
    const bv = backend.data.get(b.dataId).values;
    if (!plan || !(av instanceof Float32Array) || !(bv instanceof Float32Array)) return fallback(params);
    // uninitialised: sgemm with beta 0 overwrites it (an empty inner dimension writes nothing, so zero it then)
    const n = plan.batch * plan.M * plan.N;
    const out = plan.K > 0 ? (uninitialisedArray(n, "float32") as Float32Array) : new Float32Array(n);
    const b16 = roundedWeightFor(addon, plan, b.dataId, bv);
    if (!(b16 && addon.gemmRoundedB!(plan.batch, +ta, +tb, plan.M, plan.N, plan.K, av, 0, plan.aStride, b16, 0, plan.bStride, out, 0))) {
      addon.gemm(plan.batch, +ta, +tb, plan.M, plan.N, plan.K, av, 0, plan.aStride, bv, 0, plan.bStride, out, 0);
    }
    return backend.makeTensorInfo(plan.outShape, "float32", out);
  };
}

export function makeWasmBatchMatMul(addon: BlasAddon, fallback: tf.KernelFunc): tf.KernelFunc {
  return (params) => {
    const { a, b, ta, tb } = readArgs(params);
    const plan = a.dtype === "float32" && b.dtype === "float32" ? planBatchMatMul(a.shape, b.shape, ta, tb) : null;
    if (!plan) return fallback(params);
    const backend = params.backend as WasmBackendLike;
    const out = backend.makeOutput(plan.outShape, "float32");
    // Read the heap view only after makeOutput: its malloc may grow wasm memory, which detaches older views.
    const heap = backend.wasm.HEAPF32;
    const offset = (id: DataId) => {
      const entry = backend.dataIdMap.get(id);
      if (!entry) throw new Error("BatchMatMul: tensor data is not on the wasm heap");
      return entry.memoryOffset / 4;
    };
    addon.gemm(
      plan.batch,
      +ta,
      +tb,
      plan.M,
      plan.N,
      plan.K,
      heap,
      offset(a.dataId),
      plan.aStride,
      heap,
      offset(b.dataId),
      plan.bStride,
      heap,
      offset(out.dataId),
    );
    return out;
  };
}
