/**
 * Matrix-product throughput per compute path beside the ISA's peak (`npm run bench:compute`), printed as JSON.
 *
 * The shapes are every product of one training step of a Qwen2.5-0.5B-shaped decoder (d 896, 14 query / 2 kv heads
 * of 64, MLP 4864, vocabulary 151,936) over R = 8 x 256 tokens: y = x W, dx = dy Wᵀ and dW = xᵀ dy per projection.
 * Each path runs them through the addon's gemm (what TF.js's BatchMatMul calls): fp32 on OpenBLAS's sgemm, fp32 on
 * oneDNN's matmul (the fp32 library the trainer picks on a CPU with wider vectors than OpenBLAS's kernels:
 * trainer/backend/native/fp32-library.ts), bf16 = oneDNN bf16 matmul with fp32 accumulation, operand rounding
 * included (it is part of every bf16 call; its thin products run on the fp32 library the trainer would pick).
 *
 * Peak = measured, on every core at once: independent chains of the unit's one instruction (256- or 512-bit FMA,
 * vdpbf16ps) timed in native/blas/src/peak.c, best of three. A peak worked out from /proc/cpuinfo's clock is not
 * used: a VM reports its base clock there (2.1 GHz on the Zen 5 of docs/benchmarks.md, whose cores ran at 3.3-3.6),
 * which put achieved GFLOP/s above the "peak". AMX, which has no such loop here, is printed from the nominal clock
 * (1,024 flops per cycle per core, one TMUL tile op per cycle as Intel documents it) and says so.
 * Then the own kernels (native/blas/src/fused.c) per instruction-set path the CPU has (ROLLOUT_LAB_ISA's choices):
 * milliseconds per call at a 0.5B step's sizes, median of the rounds; and sampling's few-row products, OpenBLAS
 * against the few-row kernel (fewRowTimes).
 * Flags: --rounds N (default 3), --rows N (default 2048), --few-rows (only the few-row products).
 */
import os from "node:os";
import { readFileSync } from "node:fs";
import { loadBlasAddon } from "../trainer/backend/native/addon";
import { selectMatmulCompute } from "../trainer/backend/native/matmul-compute";
import { selectFp32Library } from "../trainer/backend/native/fp32-library";

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const ROUNDS = flag("--rounds", 3);
const R = flag("--rows", 2048);

const { addon, reason } = loadBlasAddon();
if (!addon) {
  console.log(JSON.stringify({ skipped: reason }));
  process.exit(0);
}

interface Product {
  name: string;
  ta: boolean;
  tb: boolean;
  M: number;
  N: number;
  K: number;
}
const products: Product[] = [];
for (const [label, k, n] of [
  ["q,o", 896, 896],
  ["k,v", 896, 128],
  ["gate,up", 896, 4864],
  ["down", 4864, 896],
  ["logits", 896, 151936],
] as const) {
  products.push({ name: `${label} fwd`, ta: false, tb: false, M: R, N: n, K: k });
  products.push({ name: `${label} dx`, ta: false, tb: true, M: R, N: k, K: n });
  products.push({ name: `${label} dW`, ta: true, tb: false, M: k, N: n, K: R });
}
/** How often each product runs per step: the head once; per layer (24) q,o, k,v and gate,up come in pairs, down alone. */
const perStep = (p: Product) => (p.name.startsWith("logits") ? 1 : p.name.startsWith("down") ? 24 : 48);

function cpuFlags(): Set<string> {
  const text = readFileSync("/proc/cpuinfo", "utf8");
  return new Set((text.match(/^flags\s*:(.*)$/m)?.[1] ?? "").trim().split(/\s+/));
}
function nominalGhz(): number {
  const mhz = Number(readFileSync("/proc/cpuinfo", "utf8").match(/^cpu MHz\s*:\s*([\d.]+)/m)?.[1] ?? 0);
  return mhz / 1000;
}
const flags = cpuFlags();
const cores = os.cpus().length;
const ghz = nominalGhz();
/** The unit's measured GFLOP/s on every core (best of three ~0.1 s tries: a neighbour's burst only lowers a try). */
function measuredPeak(unit: string): number | null {
  const tries = [0, 1, 2].map(() => addon!.peakGflops?.(unit, cores, 100_000_000) ?? null);
  return tries.includes(null) ? null : Math.round(Math.max(...(tries as number[])));
}
const peaks: Record<string, number | string> = {};
for (const unit of ["avx2 fp32", "avx512 fp32", "avx512_bf16"]) {
  const measured = measuredPeak(unit);
  if (measured !== null) peaks[unit] = measured;
}
if (flags.has("amx_bf16")) peaks["amx bf16"] = `${Math.round(cores * ghz * 1024)} (nominal clock, not measured)`;

function values(n: number): Float32Array {
  const v = new Float32Array(n);
  for (let i = 0; i < n; i++) v[i] = ((i * 2654435761) % 2000) / 1000 - 1;
  return v;
}

function timeProduct(p: Product): number {
  const a = values(p.M * p.K);
  const b = values(p.K * p.N);
  const out = new Float32Array(p.M * p.N);
  const run = () => addon!.gemm(1, +p.ta, +p.tb, p.M, p.N, p.K, a, 0, 0, b, 0, 0, out, 0);
  run(); // warm-up: a bf16 primitive is created on first use
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

const loadBefore = os.loadavg();
const FEW_ROWS_ONLY = args.includes("--few-rows");
type ProductPath = "fp32 OpenBLAS" | "fp32 oneDNN" | "bf16";
const paths: ProductPath[] = ["fp32 OpenBLAS", "fp32 oneDNN", "bf16"];
/** Sets the addon up for a path; the sentence saying what multiplies, and whether the path is available here. */
function selectPath(path: ProductPath): { ok: boolean; reason: string } {
  if (path === "bf16") {
    const fp32 = selectFp32Library(addon!);
    const report = selectMatmulCompute("bf16", addon!);
    return { ok: report.compute === "bf16", reason: `${report.reason}; thin ones: ${fp32.reason}` };
  }
  selectMatmulCompute("fp32", addon!);
  const library = selectFp32Library(addon!, path === "fp32 oneDNN" ? "onednn" : "openblas");
  return { ok: library.library === (path === "fp32 oneDNN" ? "onednn" : "openblas"), reason: library.reason };
}
const seconds: Record<string, Record<string, number[]>> = Object.fromEntries(paths.map((p) => [p, {}]));
const notes: Record<string, string> = {};
for (let round = 0; round < (FEW_ROWS_ONLY ? 0 : ROUNDS); round++) {
  for (const path of round % 2 ? [...paths].reverse() : paths) {
    const report = selectPath(path);
    notes[path] = report.reason;
    if (!report.ok) continue;
    for (const p of products) (seconds[path][p.name] ??= []).push(timeProduct(p));
  }
}
selectMatmulCompute("fp32", addon);
selectFp32Library(addon);

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const table = products.map((p) => {
  const gflop = (2 * p.M * p.N * p.K) / 1e9;
  const row: Record<string, unknown> = { product: p.name, shape: `[${p.M},${p.K}]x[${p.K},${p.N}]`, gflop: +gflop.toFixed(2) };
  for (const c of paths) {
    const s = seconds[c][p.name];
    row[`${c} GFLOP/s`] = s ? Math.round(gflop / median(s)) : null;
  }
  return row;
});
const stepSeconds = (c: ProductPath) =>
  seconds[c][products[0].name] ? products.reduce((sum, p) => sum + perStep(p) * median(seconds[c][p.name]), 0) : null;
const stepGflop = products.reduce((sum, p) => sum + (perStep(p) * 2 * p.M * p.N * p.K) / 1e9, 0);
const summary = Object.fromEntries(
  paths.map((c) => {
    const s = stepSeconds(c);
    return [c, s === null ? { unavailable: notes[c] } : { seconds: +s.toFixed(2), gflopPerS: Math.round(stepGflop / s), path: notes[c] }];
  }),
);
/** The own kernels at a 0.5B step's sizes, per ISA path: [name, call]. */
function ownKernelTimes(): Record<string, Record<string, number>> | string {
  if (!addon!.setIsa || !addon!.isa) return "addon built without ISA dispatch";
  const n = 2048 * 4864; // one MLP activation
  const g = values(n),
    u = values(n),
    y = new Float32Array(n);
  const D = 896;
  const x = values(R * D),
    w = values(D).map((v) => v + 1.5),
    xn = new Float32Array(R * D);
  const V = 151936,
    N = 32;
  const logits = values(N * V),
    target = Int32Array.from({ length: N }, (_, i) => i * 7),
    lp = new Float32Array(2 * N);
  const p = values(n),
    m = new Float32Array(n),
    v = new Float32Array(n),
    p2 = new Float32Array(n),
    m2 = new Float32Array(n),
    v2 = new Float32Array(n);
  const kernels: [string, () => void][] = [
    [`swiglu fwd (${n} values)`, () => addon!.swigluFwd(n, g, 0, u, 0, y, 0)],
    [`rmsnorm fwd [${R}, ${D}]`, () => addon!.rmsnormFwd(R, D, 1e-6, x, 0, w, 0, xn, 0)],
    [`token log-prob [${N}, ${V}]`, () => addon!.logprobFwd(N, V, logits, 0, target, 0, lp, 0)],
    [
      `AdamW (${n} values)`,
      () => addon!.adamw(n, 1e-4, 0.9, 0.999, 1e-8, 0.01, 0.1, 0.001, 1, p, 0, m, 0, v, 0, g, 0, p2, 0, m2, 0, v2, 0),
    ],
  ];
  const widest = addon!.isaSupported!();
  const paths = (["baseline", "avx2", "avx512"] as const).filter((_, i, all) => i <= all.indexOf(widest));
  const before = addon!.isa!();
  const out: Record<string, Record<string, number[]>> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const path of round % 2 ? [...paths].reverse() : paths) {
      addon!.setIsa!(path);
      for (const [name, call] of kernels) {
        call();
        const t = process.hrtime.bigint();
        call();
        ((out[name] ??= {})[path] ??= []).push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }
  }
  addon!.setIsa!(before);
  return Object.fromEntries(
    Object.entries(out).map(([name, byPath]) => [
      name,
      Object.fromEntries(Object.entries(byPath).map(([path, ms]) => [`${path} ms`, +median(ms).toFixed(2)])),
    ]),
  );
}

/**
 * Sampling's products, one row per sequence, at batch 1 and 8: OpenBLAS sgemm against the few-row kernel
 * (native/blas/src/skinny.c), through the addon's gemm, in ms per call (median of the rounds) and the weight's GB/s.
 * A decode step of the 0.5B shape runs each layer's q, k, v, o, gate, up, down once and the head once.
 */
function fewRowTimes(): Record<string, unknown> | string {
  if (!addon!.setFewRowGemm) return "addon built without the few-row kernel";
  selectMatmulCompute("fp32", addon!);
  const shapes: [string, number, number, boolean, number][] = [
    ["q,o x·W [896, 896]", 896, 896, false, 48],
    ["k,v x·W [896, 128]", 896, 128, false, 48],
    ["gate,up x·W [896, 4864]", 896, 4864, false, 48],
    ["down x·W [4864, 896]", 4864, 896, false, 24],
    ["head x·Eᵀ [151936, 896]", 896, 151936, true, 1],
  ];
  const before = addon!.setFewRowGemm(true);
  const out: Record<string, unknown> = {};
  for (const M of [1, 8]) {
    const rows: Record<string, unknown>[] = [];
    const perStepMs = { openblas: 0, fewRow: 0 };
    for (const [name, K, N, transposed, count] of shapes) {
      const x = values(M * K),
        w = values(K * N),
        y = new Float32Array(M * N);
      const call = () => addon!.gemm(1, 0, transposed ? 1 : 0, M, N, K, x, 0, 0, w, 0, 0, y, 0);
      const ms = { openblas: [] as number[], fewRow: [] as number[] };
      for (let round = 0; round < Math.max(ROUNDS, 3); round++) {
        for (const side of round % 2 ? (["fewRow", "openblas"] as const) : (["openblas", "fewRow"] as const)) {
          addon!.setFewRowGemm(side === "fewRow");
          call();
          const t = process.hrtime.bigint();
          call();
          ms[side].push(Number(process.hrtime.bigint() - t) / 1e6);
        }
      }
      const o = median(ms.openblas),
        f = median(ms.fewRow);
      perStepMs.openblas += count * o;
      perStepMs.fewRow += count * f;
      const gbps = (t: number) => +((K * N * 4) / (t / 1e3) / 1e9).toFixed(1);
      rows.push({
        product: name,
        "openblas ms": +o.toFixed(3),
        "few-row ms": +f.toFixed(3),
        "few-row weight GB/s": gbps(f),
        speedup: +(o / f).toFixed(2),
      });
    }
    out[`batch ${M}`] = {
      products: rows,
      decodeStepMs: { openblas: +perStepMs.openblas.toFixed(1), fewRow: +perStepMs.fewRow.toFixed(1) },
    };
  }
  addon!.setFewRowGemm(before);
  return out;
}

if (FEW_ROWS_ONLY) {
  const fewRowProducts = fewRowTimes();
  console.log(JSON.stringify({ conditions: { loadBefore, loadAfter: os.loadavg(), cores }, fewRowProducts }, null, 1));
  process.exit(0);
}

console.log(
  JSON.stringify(
    {
      conditions: {
        loadBefore,
        loadAfter: os.loadavg(),
        cores,
        nominalGhz: ghz,
        rounds: ROUNDS,
        blas: addon.config().trim(),
        threads: addon.threads(),
      },
      peakGflopPerS: peaks,
      stepProducts: { gflop: Math.round(stepGflop), ...summary },
      products: table,
      ownKernelsPerIsa: ownKernelTimes(),
      fewRowProducts: fewRowTimes(),
    },
    null,
    1,
  ),
);
