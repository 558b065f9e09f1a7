/**
 * Loads the OpenBLAS N-API addon built by native/build.mjs (native/blas/build/Release/blas.node). A missing or
 * unloadable addon is an ordinary outcome (no OpenBLAS on the machine, build skipped), reported as a reason string
 * so callers fall back to the stock TF.js kernels.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** An AdamW kernel: its size and hyper-parameters (lr, b1, b2, eps, wd, bc1, bc2, clip), then its buffers. */
type AdamwCall = (
  n: number,
  lr: number,
  b1: number,
  b2: number,
  eps: number,
  wd: number,
  bc1: number,
  bc2: number,
  clip: number,
  ...bufs: Buf[]
) => void;

/** "bf16-sgemm": bf16 operands with every product on sgemm, where oneDNN's bf16 is missing or wrong (gemm.h). */
export type NativeCompute = "fp32" | "bf16" | "bf16-sgemm";

export interface BlasAddon {
  /**
   * out[i] = op(a[i]) x op(b[i]) for i < batch, row-major; a[i] is [M,K] ([K,M] if ta), b[i] is [K,N] ([N,K] if
   * tb). Offsets and strides count float32 elements; stride 0 broadcasts one matrix over the batch.
   */
  gemm(
    batch: number,
    ta: number,
    tb: number,
    M: number,
    N: number,
    K: number,
    a: Float32Array,
    aOff: number,
    aStride: number,
    b: Float32Array,
    bOff: number,
    bStride: number,
    out: Float32Array,
    outOff: number,
  ): void;
  /** out = x permuted by perm (4-byte elements); offsets count elements. */
  transpose(
    x: Float32Array | Int32Array,
    xOff: number,
    out: Float32Array | Int32Array,
    outOff: number,
    shape: number[],
    perm: number[],
  ): void;
  /** x as [outer, axisDim, inner] -> out [outer, n, inner] picking idx; false (and no result) on an out-of-range index. */
  gather(
    x: Float32Array | Int32Array,
    xOff: number,
    outer: number,
    axisDim: number,
    inner: number,
    idx: Float32Array | Int32Array,
    idxOff: number,
    n: number,
    out: Float32Array | Int32Array,
    outOff: number,
  ): boolean;
  /** out[c] = sum over r of x[r, c], x viewed as [rows, cols] float32. */
  sumRows(x: Float32Array, xOff: number, rows: number, cols: number, out: Float32Array, outOff: number): void;
  /** out = a op b over n float32 values (op 0 add, 1 subtract, 2 multiply); absent from older builds. */
  binary?(op: number, a: Float32Array, aOff: number, b: Float32Array, bOff: number, out: Float32Array, outOff: number, n: number): void;
  /** op 0 = exp over n float32 values. */
  unary(op: 0, x: Float32Array, xOff: number, out: Float32Array, outOff: number, n: number): void;
  threads(): number;
  setThreads(n: number): void;
  config(): string;
  /** What gemm multiplies in (native/blas/src/gemm.h); false when bf16 is not in this build. Absent from older builds. */
  setCompute?(mode: NativeCompute): boolean;
  compute?(): NativeCompute;
  /** "oneDNN 2.6.3", or why bf16 compute is not available. */
  computeLibrary?(): string;
  /**
   * Which library multiplies fp32 products of at least 2^22 multiply-adds per matrix (native/blas/src/gemm.c, "fp32
   * library"); false, nothing changed, when oneDNN is missing from this build. fp32-library.ts chooses at load.
   */
  setFp32Library?(library: Fp32Library): boolean;
  fp32Library?(): Fp32Library;
  /**
   * Where the products' time went since the last reset, as JSON: fp32 calls / ms / GFLOP in total (and how many ran
   * on oneDNN), and per oneDNN geometry (fp32 or bf16) the calls and ms spent rounding operands and in oneDNN
   * (bench:trainer --profile prints it).
   */
  gemmStats?(reset: boolean): string;
  /**
   * gemm under bf16 compute with b already rounded (b16: packed bf16 halves; bOff / bStride count bf16 values).
   * false, writing nothing, when the product is thin (bf16Thin) or oneDNN cannot run it: call gemm then.
   */
  gemmRoundedB?(
    batch: number,
    ta: number,
    tb: number,
    M: number,
    N: number,
    K: number,
    a: Float32Array,
    aOff: number,
    aStride: number,
    b16: Int32Array,
    bOff: number,
    bStride: number,
    out: Float32Array,
    outOff: number,
  ): boolean;
  /** Whether bf16 compute runs an [M,K]x[K,N] product as sgemm on rounded operands (native/blas/src/gemm.c). */
  bf16Thin?(M: number, N: number, K: number): boolean;
  /**
   * The measured peak GFLOP/s of one vector unit ("avx2 fp32", "avx512 fp32", "avx512_bf16") on `threads` threads,
   * each issuing `iterations` x 12 independent instructions; null where the CPU lacks it (native/blas/src/peak.h).
   */
  peakGflops?(unit: string, threads: number, iterations: number): number | null;
  /** Instruction set of the own kernels (native/blas/src/isa.h): in use, the widest the CPU has, and a switch. */
  isa?(): IsaPath;
  isaSupported?(): IsaPath;
  /** false: the CPU lacks that path (nothing changed). */
  setIsa?(path: IsaPath): boolean;
  /** glibc: serve blocks under `bytes` from the heap and keep freed memory (native/blas/src/addon.c says why). */
  keepLargeBuffersInHeap?(bytes: number): boolean;
  // Fused decoder kernels (native/blas/src/fused_napi.c): dimensions first, then (array, offset) per buffer.
  rmsnormFwd(R: number, D: number, eps: number, ...bufs: Buf[]): void;
  rmsnormBwd(R: number, D: number, eps: number, ...bufs: Buf[]): void;
  /** false: a position outside [0, maxPos). */
  ropeApply(R: number, heads: number, hd: number, maxPos: number, sign: number, ...bufs: Buf[]): boolean;
  swigluFwd(n: number, ...bufs: Buf[]): void;
  swigluBwd(n: number, ...bufs: Buf[]): void;
  /** keyMask may be (null, 0). */
  attnFwd(B: number, T: number, Tk: number, H: number, KV: number, hd: number, past: number, scale: number, ...bufs: (Buf | null)[]): void;
  attnBwd(B: number, T: number, Tk: number, H: number, KV: number, hd: number, scale: number, ...bufs: Buf[]): void;
  /** false: a target outside the vocabulary. */
  logprobFwd(N: number, V: number, ...bufs: Buf[]): boolean;
  logprobBwd(N: number, V: number, ...bufs: Buf[]): void;
  adamw: AdamwCall;
  /** Overwrites p, m and v (buffers p, m, v, g); throws when any two share memory. Absent from older builds. */
  adamwInPlace?: AdamwCall;
  /** adamwInPlace that also writes p rounded to bf16 into a packed copy (buffers p, m, v, g, p16). */
  adamwInPlaceBf16?: AdamwCall;
  /** 8-bit moments: mq / vq are n bytes packed in Int32Arrays of ceil(n/4); ms / vs one scale per 256 values. */
  adamw8: AdamwCall;
  adamw8Decode(n: number, ...bufs: Buf[]): void;
  adamw8Encode(n: number, ...bufs: Buf[]): void;
  sumSquares(n: number, x: Float32Array, xOff: number): number;
  /** false: position outside the cache or rotary table. Writes row `past` of the two cache buffers in place. */
  decodeLayer(
    B: number,
    D: number,
    H: number,
    KV: number,
    hd: number,
    mlp: number,
    past: number,
    cap: number,
    maxPos: number,
    eps: number,
    scale: number,
    hasBias: number,
    ...bufs: (Buf | null)[]
  ): boolean;
  // bfloat16 weight storage (native/blas/src/bf16.h): two values per 4-byte element of a packed Int32Array.
  bf16Encode(n: number, ...bufs: Buf[]): void;
  bf16Decode(n: number, ...bufs: Buf[]): void;
  /** y [M, N] = x [M, K] @ W, W packed [K, N]; or x @ Wᵀ with W packed [N, K] (transW 1). */
  bf16MatMul(M: number, K: number, N: number, transW: number, ...bufs: Buf[]): void;
  /** false: an id outside the table's rows. */
  bf16Gather(rows: number, D: number, n: number, ...bufs: Buf[]): boolean;
  /**
   * y [M, N] = x [M, K] @ W + beta y, W [K, N] (or x @ Wᵀ, W [N, K], transW 1), for M ≤ 8: the few-row kernel decoding
   * runs on (native/blas/src/skinny.h), columns shared over `threads`; roundW 1 rounds W's values to bf16 as they are
   * read (bf16 compute). false (nothing written) for M outside 1..8. Absent from builds before it.
   */
  skinnyGemm?(M: number, K: number, N: number, transW: number, roundW: number, beta: number, threads: number, ...bufs: Buf[]): boolean;
  /** Few-row products on that kernel (true, the default unless ROLLOUT_LAB_FEW_ROW_GEMM=0) or OpenBLAS; returns the previous. */
  setFewRowGemm?(on: boolean): boolean;
}

export type IsaPath = "baseline" | "avx2" | "avx512";

export type Fp32Library = "openblas" | "onednn";

/** A buffer argument is two arguments: the typed array and an element offset into it. */
type Buf = Float32Array | Int32Array | number;

/** Says when ROLLOUT_LAB_ISA asked for a path this CPU does not have (the widest it has is used instead). */
function isaNote(addon: BlasAddon, asked = process.env.ROLLOUT_LAB_ISA): string {
  if (!asked || asked === addon.isa?.()) return "";
  return ` (ROLLOUT_LAB_ISA=${asked} is not a path this CPU runs: baseline, avx2 or avx512 up to ${addon.isaSupported?.()})`;
}

const here = path.dirname(fileURLToPath(import.meta.url));
/** Repository root is three levels above trainer/backend/native. */
export const ADDON_PATH = path.resolve(here, "../../../native/blas/build/Release/blas.node");

let cached: { addon: BlasAddon | null; reason: string } | null = null;

/**
 * oneDNN's threads are OpenMP's (libgomp), which by default spin for a while after each product waiting for the
 * next. Between this trainer's products the cores are wanted by other threads (the fused kernels', OpenBLAS's, the
 * main thread's), and a spinning thread only takes a core from them: on the 0.5B step under bf16 compute, letting
 * them sleep at once (OMP_WAIT_POLICY=passive) cut the step's CPU time from 11.2 to 9.9 s with no loss of wall time
 * (LoRA in fp32: 11.4 to 11.0 s). libgomp reads the variable when it loads, with the addon; a value the user set is
 * kept.
 */
function keepOneDnnThreadsFromSpinning(): void {
  process.env.OMP_WAIT_POLICY ??= "passive";
}

/**
 * OpenBLAS's worker threads, once woken for a product, spin on sched_yield for 2^28 cycles (~0.1 s) waiting for
 * the next before they sleep. Between this trainer's products the cores are wanted by oneDNN's threads, the fused
 * kernels' and V8's, so the spinning only burns CPU time, most of it as system time in sched_yield: on a Zen 4 host
 * the 0.5B bf16 step spent 2.3 s of its 13.5 s CPU there (perf: sched_yield from OpenBLAS's worker and from the main
 * thread waiting on it), and 2^4 cycles (OpenBLAS's minimum) took it to 11.0 s with the wall time 7.1 -> 6.3 s.
 * OpenBLAS reads the variable when it loads, with the addon; a value the user set is kept.
 */
function keepOpenBlasThreadsFromSpinning(): void {
  process.env.OPENBLAS_THREAD_TIMEOUT ??= "4";
}

/** The addon, or null with one sentence saying why not (and what to run to get it). */
export function loadBlasAddon(file: string = ADDON_PATH): { addon: BlasAddon | null; reason: string } {
  if (cached && file === ADDON_PATH) return cached;
  let result: { addon: BlasAddon | null; reason: string };
  if (!existsSync(file)) {
    result = {
      addon: null,
      reason: `native BLAS addon not built (${path.relative(process.cwd(), file)} missing); install libopenblas-dev and run node native/build.mjs`,
    };
  } else {
    try {
      keepOneDnnThreadsFromSpinning();
      keepOpenBlasThreadsFromSpinning();
      const addon = createRequire(import.meta.url)(file) as BlasAddon;
      if (typeof addon.gemm !== "function") throw new Error("it exports no gemm()");
      const isa = addon.isa ? `, own kernels ${addon.isa()}${isaNote(addon)}` : "";
      result = { addon, reason: `OpenBLAS addon loaded (${addon.config().trim()}, ${addon.threads()} threads${isa})` };
    } catch (e) {
      const msg = (e instanceof Error ? e.message : String(e)).split("\n")[0];
      result = { addon: null, reason: `native BLAS addon failed to load (${msg}); rebuild with node native/build.mjs` };
    }
  }
  if (file === ADDON_PATH) cached = result;
  return result;
}

/**
 * Threads OpenBLAS uses. OpenBLAS reads OPENBLAS_NUM_THREADS (else the core count) when the library loads; we
 * report what it settled on, or what the variable asks for when the addon is absent (default 2 on this machine).
 */
export function nativeThreadCount(env: Record<string, string | undefined> = process.env): number {
  const { addon } = loadBlasAddon();
  if (addon) return addon.threads();
  const asked = Number.parseInt(env.OPENBLAS_NUM_THREADS ?? "", 10);
  return Number.isInteger(asked) && asked > 0 ? asked : 2;
}
