/**
 * Which library multiplies the large fp32 products: OpenBLAS or oneDNN (native/blas/src/gemm.c, "fp32 library").
 *
 * OpenBLAS runs the kernels of the core type it was told or detected, and Debian's 0.3.21 must be told Haswell (AVX2)
 * on an AMD Zen 5 (OPENBLAS_CORETYPE=Haswell: it mis-computes otherwise), so on such a CPU half the vector width goes
 * unused. oneDNN picks its kernels from the CPU itself. Measured (docs/benchmarks.md, bench:compute): on Zen 5 with
 * AVX-512, oneDNN ran the 0.5B step's products at 1.6-2x OpenBLAS-as-Haswell; on a Sapphire Rapids Xeon, where
 * OpenBLAS runs its own AVX-512 kernels, the two were level (300-320 against 290-340 GFLOP/s), and OpenBLAS stays.
 *
 * So the rule is fixed, not timed at load (a timing would flip with the load, and with it the last bits of a run's
 * numbers between a run and its resumption): oneDNN when the CPU has AVX-512 and OpenBLAS's kernels do not, OpenBLAS
 * otherwise. ROLLOUT_LAB_FP32_GEMM=openblas|onednn overrides it. oneDNN is checked against float64 first and is
 * not used, with the reason, if it disagrees.
 */
import type { BlasAddon, Fp32Library } from "./addon";
import { PRODUCT_TOLERANCE, worstRelativeError } from "./matmul-compute";

export interface Fp32LibraryReport {
  library: Fp32Library;
  /** One clause for the native kernels' report line. */
  reason: string;
}

/** OpenBLAS 0.3.21's core types whose sgemm kernels use AVX-512. */
const OPENBLAS_AVX512_CORES = ["skylakex", "cooperlake", "sapphirerapids"];

/** The core type in OpenBLAS's config string ("OpenBLAS 0.3.21 ... DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"). */
export function openBlasCore(config: string): string {
  const words = config.trim().split(/\s+/);
  const at = words.findIndex((w) => w.startsWith("MAX_THREADS="));
  return at > 0 ? words[at - 1] : (words.at(-1) ?? "");
}

/** The library the rule picks for this CPU and OpenBLAS build, and why. */
export function preferredFp32Library(isaSupported: string | undefined, openBlasConfig: string): Fp32LibraryReport {
  const core = openBlasCore(openBlasConfig);
  const openBlasWide = OPENBLAS_AVX512_CORES.includes(core.toLowerCase());
  if (isaSupported === "avx512" && !openBlasWide) {
    return { library: "onednn", reason: `the CPU has AVX-512 and OpenBLAS runs its ${core} kernels` };
  }
  return {
    library: "openblas",
    reason: isaSupported === "avx512" ? `OpenBLAS runs its AVX-512 ${core} kernels` : "no AVX-512 on this CPU",
  };
}

const CHOICES = ["auto", "openblas", "onednn"] as const;

/** The float64 check of fp32 products, whatever compute (fp32 or bf16) the addon is set to meanwhile. */
function fp32ProductError(addon: BlasAddon): number {
  const mode = addon.compute?.() ?? "fp32";
  if (mode !== "fp32") addon.setCompute?.("fp32");
  try {
    return worstRelativeError(addon, "fp32");
  } finally {
    if (mode !== "fp32") addon.setCompute?.(mode);
  }
}

/**
 * Sets the addon's fp32 library by the rule (or ROLLOUT_LAB_FP32_GEMM) and returns what it chose and why. oneDNN is
 * used only when this build has it and it agrees with a float64 product on this machine.
 */
export function selectFp32Library(addon: BlasAddon, asked = process.env.ROLLOUT_LAB_FP32_GEMM): Fp32LibraryReport {
  if (typeof addon.setFp32Library !== "function") {
    return { library: "openblas", reason: "fp32 products on OpenBLAS (this addon build predates oneDNN fp32)" };
  }
  const choice = asked ?? "auto";
  let note = "";
  let want: Fp32LibraryReport;
  if (choice === "openblas" || choice === "onednn") {
    want = { library: choice, reason: `ROLLOUT_LAB_FP32_GEMM=${choice}` };
  } else {
    if (!(CHOICES as readonly string[]).includes(choice)) {
      note = `; ROLLOUT_LAB_FP32_GEMM=${choice} ignored (use ${CHOICES.join(", ")})`;
    }
    want = preferredFp32Library(addon.isaSupported?.(), addon.config());
  }
  if (want.library === "openblas") {
    addon.setFp32Library("openblas");
    return { library: "openblas", reason: `fp32 products on OpenBLAS (${want.reason})${note}` };
  }
  if (!addon.setFp32Library("onednn")) {
    return {
      library: "openblas",
      reason: `fp32 products on OpenBLAS: oneDNN is not in this build (${addon.computeLibrary?.() ?? "missing"}), though ${want.reason}${note}`,
    };
  }
  const error = fp32ProductError(addon);
  if (!(error <= PRODUCT_TOLERANCE)) {
    addon.setFp32Library("openblas");
    return {
      library: "openblas",
      reason: `fp32 products on OpenBLAS: oneDNN disagreed with a float64 reference (relative error ${error.toExponential(1)})${note}`,
    };
  }
  return {
    library: "onednn",
    reason: `large fp32 products on ${addon.computeLibrary?.() ?? "oneDNN"} (${want.reason}; checked against float64: ${error.toExponential(1)})${note}`,
  };
}
