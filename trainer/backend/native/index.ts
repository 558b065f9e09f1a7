/**
 * Native (OpenBLAS) kernels for TF.js, installed underneath ordinary tf ops. `tryEnableNativeKernels` never throws
 * for an absent addon or an unsupported backend: it says why and leaves the stock kernels in place, so the trainer
 * runs everywhere and only runs faster where `native/build.mjs` could build the addon.
 */
import * as tf from "@tensorflow/tfjs";
import { loadBlasAddon, type BlasAddon } from "./addon";
import { makeCpuBatchMatMul, makeWasmBatchMatMul } from "./batch-matmul";
import { makeExp, makeGather, makeSum, makeTranspose, makeWasmCast, makeWasmIdentity } from "./layout-kernels";
import { registerFusedKernels, unregisterFusedKernels } from "./fused-kernels";
import { makeCpuAdd, makeCpuMultiply, makeCpuSub } from "./cpu-elementwise";
import { PRODUCT_TOLERANCE, worstRelativeError } from "./matmul-compute";
import { selectFp32Library, type Fp32LibraryReport } from "./fp32-library";

export { nativeThreadCount } from "./addon";
export { planBatchMatMul } from "./batch-matmul";

export interface NativeKernelsReport {
  enabled: boolean;
  /** One sentence, shown on the run page: what was registered, or why nothing was. */
  reason: string;
  kernels: string[];
}

type Factory = (addon: BlasAddon, fallback: tf.KernelFunc) => tf.KernelFunc;

const FACTORIES: Record<string, Record<string, Factory>> = {
  cpu: {
    BatchMatMul: makeCpuBatchMatMul,
    Transpose: makeTranspose,
    GatherV2: makeGather,
    Exp: makeExp,
    Sum: makeSum,
    Add: makeCpuAdd,
    Sub: makeCpuSub,
    Multiply: makeCpuMultiply,
  },
  wasm: {
    BatchMatMul: makeWasmBatchMatMul,
    Identity: makeWasmIdentity,
    Cast: makeWasmCast,
    Transpose: makeTranspose,
    GatherV2: makeGather,
    Exp: makeExp,
    Sum: makeSum,
  },
};

/** Largest block glibc serves from the heap on the cpu backend: above a 0.5B model's largest buffer (544 MB). */
const HEAP_BUFFER_BYTES = 2 ** 31 - 1;

/** The fp32 library chosen once per process (fp32-library.ts), before the fp32 product is checked. */
let fp32Choice: Fp32LibraryReport | null = null;
function chosenFp32Library(addon: BlasAddon): Fp32LibraryReport {
  fp32Choice ??= selectFp32Library(addon);
  return fp32Choice;
}

/** The fp32 product checked once per process (a few ms): the addon's BLAS is the same for every backend. */
let fp32ProductError: number | null = null;
function checkedProductError(addon: BlasAddon): number {
  if (fp32ProductError === null) {
    const mode = addon.compute?.() ?? "fp32";
    addon.setCompute?.("fp32");
    fp32ProductError = worstRelativeError(addon, "fp32");
    if (mode !== "fp32") addon.setCompute?.(mode);
  }
  return fp32ProductError;
}

/** Stock kernels we replaced, per backend, so `disableNativeKernels` can put them back. */
const replaced = new Map<string, tf.KernelConfig[]>();

function swapKernel(config: tf.KernelConfig): void {
  tf.unregisterKernel(config.kernelName, config.backendName);
  tf.registerKernel(config);
}

/**
 * Registers OpenBLAS-backed kernels on `backendName` (call after the backend is set and `tf.ready()`).
 * Idempotent: a second call for the same backend reports the kernels already in place.
 */
export async function tryEnableNativeKernels(backendName: string): Promise<NativeKernelsReport> {
  if (process.env.ROLLOUT_LAB_NATIVE === "0") {
    return { enabled: false, reason: "native kernels disabled by ROLLOUT_LAB_NATIVE=0", kernels: [] };
  }
  const factories = FACTORIES[backendName];
  if (!factories) {
    return {
      enabled: false,
      reason: `no native kernels for the ${backendName} backend (only ${Object.keys(FACTORIES).join(", ")})`,
      kernels: [],
    };
  }
  const { addon, reason } = loadBlasAddon();
  if (!addon) return { enabled: false, reason, kernels: [] };
  const fp32 = chosenFp32Library(addon);
  const productError = checkedProductError(addon);
  if (productError > PRODUCT_TOLERANCE) {
    return {
      enabled: false,
      reason: `native sgemm disagreed with a float64 reference on this CPU (relative error ${productError.toExponential(1)}); stock kernels kept`,
      kernels: [],
    };
  }
  const names = Object.keys(factories);
  if (replaced.has(backendName)) {
    return { enabled: true, reason: `${reason}; already registered`, kernels: names };
  }
  const originals: tf.KernelConfig[] = [];
  for (const name of names) {
    const stock = tf.getKernel(name, backendName);
    if (!stock) continue; // backend package not loaded: nothing to replace, nothing to fall back to
    originals.push(stock);
    // setupFunc is omitted on purpose: the stock setup already ran when the backend initialised, and the stock
    // kernelFunc we fall back to relies on the state it left.
    swapKernel({ kernelName: name, backendName, kernelFunc: factories[name](addon, stock.kernelFunc) });
  }
  if (!originals.length) {
    return { enabled: false, reason: `the ${backendName} backend has no kernels to replace`, kernels: [] };
  }
  replaced.set(backendName, originals);
  const fused = registerFusedKernels(addon, backendName);
  // The cpu backend's buffers are malloc'd typed arrays (wasm's live in its own heap): reuse them step to step.
  const heapNote =
    backendName === "cpu" && addon.keepLargeBuffersInHeap?.(HEAP_BUFFER_BYTES) === true
      ? "; buffers under 2 GiB reused from the heap, not mapped afresh each step"
      : "";
  const fusedNote = fused.length
    ? `, ${fused.length} fused decoder kernels added`
    : backendName === "wasm" || backendName === "cpu"
      ? "; fused decoder kernels missing from this addon build (rebuild with node native/build.mjs)"
      : "";
  return {
    enabled: true,
    reason: `${reason}; ${fp32.reason}; ${originals.length} ${backendName} kernels replaced${fusedNote}${heapNote}`,
    kernels: [...originals.map((k) => k.kernelName), ...fused],
  };
}

/** Restores the stock kernels (benchmarks compare both; tests leave the registry as they found it). */
export function disableNativeKernels(backendName: string): void {
  const originals = replaced.get(backendName);
  if (!originals) return;
  for (const k of originals) swapKernel(k);
  unregisterFusedKernels(backendName);
  replaced.delete(backendName);
}

export function nativeKernelsEnabled(backendName: string): boolean {
  return replaced.has(backendName);
}
