/**
 * What BatchMatMul multiplies in: fp32 (OpenBLAS sgemm) or bf16 operands with fp32 accumulation (oneDNN), the
 * latter being `policy.compute: "bf16"` — PyTorch's CPU autocast for matmul. Master weights, gradients and AdamW
 * state stay fp32 either way; only each product's inputs are rounded.
 *
 * Whichever is chosen is first checked against a float64 product on this machine (some BLAS builds compute wrong
 * results on some CPU families): a path that disagrees is not used, and the reason says so. Where oneDNN's bf16 is
 * missing or disagrees (on a CPU without AVX-512 oneDNN 2.6 was off by 7.6e-4), bf16 runs every product as sgemm on
 * rounded operands: the numbers bf16 promises, without its speed.
 */
import { loadBlasAddon, type BlasAddon, type NativeCompute } from "./addon";

export type MatmulCompute = "fp32" | "bf16";

export interface MatmulComputeReport {
  compute: MatmulCompute;
  /** One sentence for the run page: what multiplies, or why the requested compute could not be had. */
  reason: string;
}

/** Round to the nearest bfloat16, ties to even (the rounding the kernel applies to each operand). */
export function roundToBf16(x: number): number {
  const f = new Float32Array([x]);
  const u = new Uint32Array(f.buffer);
  if (Number.isNaN(x)) return x;
  u[0] = ((u[0] + 0x7fff + ((u[0] >>> 16) & 1)) & 0xffff0000) >>> 0;
  return f[0];
}

interface Geometry {
  batch: number;
  ta: boolean;
  tb: boolean;
  M: number;
  N: number;
  K: number;
  broadcastA: boolean;
  broadcastB: boolean;
}

/**
 * Shapes that exercise every transpose, a broadcast side and a K long enough for blocked accumulation. Under bf16
 * compute, products with a side under 256 run as sgemm on rounded operands (native/blas/src/gemm.c) and the others on
 * oneDNN: the 256-row shape is there so that oneDNN is checked too. In fp32, it and the last shape reach oneDNN when
 * it is the fp32 library, the rest OpenBLAS.
 */
const CHECKS: Geometry[] = [
  { batch: 1, ta: false, tb: false, M: 67, N: 45, K: 300, broadcastA: false, broadcastB: false },
  { batch: 1, ta: false, tb: true, M: 256, N: 264, K: 272, broadcastA: false, broadcastB: false },
  { batch: 3, ta: true, tb: false, M: 33, N: 29, K: 61, broadcastA: false, broadcastB: false },
  { batch: 2, ta: false, tb: true, M: 31, N: 40, K: 77, broadcastA: false, broadcastB: true },
  { batch: 2, ta: true, tb: true, M: 24, N: 19, K: 50, broadcastA: true, broadcastB: false },
  // Large enough (2^22 multiply-adds) for oneDNN when it multiplies fp32 (fp32-library.ts): transposes, a broadcast.
  { batch: 2, ta: true, tb: true, M: 150, N: 170, K: 180, broadcastA: false, broadcastB: true },
];

/** Deterministic values in [-1, 1) (a check must fail the same way every time it fails). */
function values(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

/**
 * Largest |addon - reference| over the check shapes, relative to the sum of |products| of each output element:
 * fp32 accumulation of K terms stays near K * 2^-24 of that; a wrong kernel is off by O(1).
 */
export function worstRelativeError(addon: BlasAddon, compute: MatmulCompute): number {
  const round = compute === "bf16" ? roundToBf16 : (x: number) => x;
  let worst = 0;
  CHECKS.forEach((g, i) => {
    const sizeA = g.M * g.K;
    const sizeB = g.K * g.N;
    const a = values((g.broadcastA ? 1 : g.batch) * sizeA, 11 + i);
    const b = values((g.broadcastB ? 1 : g.batch) * sizeB, 97 + i);
    const ra = Float64Array.from(a, round);
    const rb = Float64Array.from(b, round);
    const out = new Float32Array(g.batch * g.M * g.N);
    const strideA = g.broadcastA ? 0 : sizeA;
    const strideB = g.broadcastB ? 0 : sizeB;
    addon.gemm(g.batch, +g.ta, +g.tb, g.M, g.N, g.K, a, 0, strideA, b, 0, strideB, out, 0);
    for (let bi = 0; bi < g.batch; bi++) {
      for (let m = 0; m < g.M; m++) {
        for (let n = 0; n < g.N; n++) {
          let sum = 0;
          let scale = 0;
          for (let k = 0; k < g.K; k++) {
            const av = ra[bi * strideA + (g.ta ? k * g.M + m : m * g.K + k)];
            const bv = rb[bi * strideB + (g.tb ? n * g.K + k : k * g.N + n)];
            sum += av * bv;
            scale += Math.abs(av * bv);
          }
          const got = out[(bi * g.M + m) * g.N + n];
          worst = Math.max(worst, Number.isFinite(got) ? Math.abs(got - sum) / Math.max(scale, 1e-30) : Infinity);
        }
      }
    }
  });
  return worst;
}

/** Bound for the check: fp32 accumulation error is a few ulp (2^-24) per term; 1e-4 leaves room, a wrong kernel is ~1. */
export const PRODUCT_TOLERANCE = 1e-4;

/** setCompute, false where an older build throws on a mode it does not know ("bf16-sgemm" is newer than "bf16"). */
function trySetCompute(addon: BlasAddon, mode: NativeCompute): boolean {
  try {
    return addon.setCompute?.(mode) ?? false;
  } catch {
    return false;
  }
}

/**
 * Sets the addon's matmul compute to `requested` when it is available and passes the float64 check; otherwise fp32
 * (itself checked), with the reason. Never throws for a missing addon or library.
 */
export function selectMatmulCompute(requested: MatmulCompute, addon: BlasAddon | null = loadBlasAddon().addon): MatmulComputeReport {
  if (!addon) return { compute: "fp32", reason: requested === "bf16" ? "bf16 compute needs the native kernels; fp32 kept" : "fp32" };
  if (requested === "bf16") {
    if (typeof addon.setCompute !== "function") {
      return { compute: "fp32", reason: "bf16 compute needs a newer native build (node native/build.mjs); fp32 kept" };
    }
    const library = addon.computeLibrary?.() ?? "missing";
    let onednn: string;
    if (addon.setCompute("bf16")) {
      const error = worstRelativeError(addon, "bf16");
      if (error <= PRODUCT_TOLERANCE) {
        return {
          compute: "bf16",
          reason: `matmul in bf16 with fp32 accumulation (${library}; checked against float64: ${error.toExponential(1)})`,
        };
      }
      onednn = `${library} disagreed with a float64 reference (relative error ${error.toExponential(1)})`;
    } else onednn = `oneDNN unavailable: ${library}`;
    if (trySetCompute(addon, "bf16-sgemm")) {
      const error = worstRelativeError(addon, "bf16");
      if (error <= PRODUCT_TOLERANCE) {
        return {
          compute: "bf16",
          reason: `matmul in bf16 as sgemm on rounded operands, no faster than fp32 (${onednn}; checked against float64: ${error.toExponential(1)})`,
        };
      }
      onednn += `, and sgemm on rounded operands too (${error.toExponential(1)})`;
    }
    addon.setCompute("fp32");
    return { compute: "fp32", reason: `bf16 products: ${onednn}; fp32 kept` };
  }
  addon.setCompute?.("fp32");
  return { compute: "fp32", reason: "fp32" };
}
