/**
 * `npm run bench:trainer -- --sizes`: training-step time, tokens/s and peak RSS per model size and CPU backend,
 * each (size, backend) in a fresh process so its peak RSS is its own and a crash (the wasm heap's 4 GiB) is a
 * row, not the end of the benchmark. Backends: wasm + native kernels (the default path) and cpu + native kernels
 * (tensors in JavaScript typed arrays, outside the wasm heap: the path for models past 4 GiB).
 *
 * Sizes (fp32, AdamW, one step = forward + backward + update on batch × context tokens):
 *   1M    the bench reference decoder, 16 × 128
 *   25M   vocab 8192, d 512, 6 layers, 16 × 128
 *   100M  vocab 32000, d 768, 12 layers, MLP 2048, tied embeddings, 16 × 128
 *   0.5B  Qwen2.5-0.5B's shape (vocab 151,936, d 896, 24 layers, GQA 14/2, q/k/v bias, tied), 4 × 128,
 *         full-parameter, full-parameter with 8-bit AdamW moments (policy.optimizerState "8bit"), those and
 *         activation recomputation (policy.recomputeActivations), and with LoRA r=16 on q/k/v/o; with a KL
 *         reference scored every step (fp32, or bf16 by policy.frozenWeights), and LoRA on a bf16 base
 *
 * Measured as the reference-shape bench is (bench/trainer.ts): for each size, rounds alternate our side and PyTorch's
 * (bench/pytorch-sizes.py, the same shape and work), the order reversed each round so drift favours neither; each
 * side of a round is a fresh process (its peak RSS is its own; a crash — the wasm heap's 4 GiB — is a row, not the
 * end of the benchmark) that warms up with two steps and times `--steps` more. Both sides run AdamW with weight decay
 * 0.01 and grad-norm clip 1; PyTorch runs one intra-op thread (on 2 cores that split was the fastest: 2.65 s vs
 * 3.5-3.7 s at 25M) under the tuned allocator of bench/pytorch.ts for every figure, speed and RSS alike; Debian's
 * torch multiplies in the same OpenBLAS as ours, on OpenBLAS's own threads (OPENBLAS_NUM_THREADS, the core count by
 * default, on both sides). Reported per side: min and median of wall and CPU (user + sys, every thread) time per
 * step over all rounds, peak RSS, KV-cache sampling tokens/s at batch 1 and 8; ratios of medians and of minima, the
 * per-round ratios, and the load average before and after every process; per row of ours, the product floor: the
 * step's matrix products in GFLOP (trainer/policy/step-flops.ts) at one core's measured peak for that arithmetic,
 * beside our and PyTorch's CPU medians (the lowest CPU ratio any implementation could reach here).
 * Flags: --sizes 1M,25M (subset), --backends cpu (subset), --rounds N (default 3), --steps N (timed steps per side
 * per round, default 3), --compute bf16 (ours with policy.compute "bf16", PyTorch under
 * torch.autocast("cpu", dtype=torch.bfloat16) — both multiply bf16 operands with fp32 accumulation and keep fp32
 * weights and AdamW state), --no-pytorch, --profile (after the rounds, one more process per size and backend times one
 * step under tf.profile and prints where it goes per kernel, with that step's wall and CPU time; profiling adds
 * overhead, so those figures stay out of the table).
 */
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../trainer/backend/select";
import { selectMatmulCompute } from "../trainer/backend/native/matmul-compute";
import { DecoderLM } from "../trainer/policy/model";
import { PRESETS, countParameters, type ModelConfig } from "../trainer/policy/config";
import { AdamW } from "../trainer/policy/optimizer";
import { Rng } from "../trainer/policy/rng";
import { generate } from "../trainer/policy/sampling";
import { GuardedStepper } from "../trainer/update/step";
import { maskedNll } from "../trainer/update/sft";
import { padBatch, tokenLogProbs } from "../trainer/policy/logprobs";
import { findTorchPython, PYTORCH_ALLOCATOR_ENV } from "./pytorch";
import { useHeapMarkingFor } from "../trainer/backend/heap-marking";
import { loadBlasAddon } from "../trainer/backend/native/addon";
import { kernelTimesByName, kernelTimesByShape, type KernelTime } from "./kernel-times";
import { stepProductFlops } from "../trainer/policy/step-flops";

interface SizeSpec {
  config: ModelConfig;
  batch: number;
  context: number;
  lora?: number;
  /** AdamW's moments in 8 bits (PyTorch's row stays fp32 AdamW: the comparison is against the usual setup). */
  stateBits?: 8;
  /** Activation checkpointing (PyTorch's row keeps its activations, as by default). */
  recompute?: boolean;
  /** A KL reference whose log-probs of the batch are computed every step, as GRPO does (PyTorch's is fp32). */
  reference?: "fp32" | "bf16";
  /** A LoRA base stored in bfloat16 (PyTorch's row keeps it fp32). */
  baseBf16?: boolean;
}

const base = { ropeTheta: 10000, rmsNormEps: 1e-5, attentionBias: false } as const;
const qwen05: ModelConfig = { ...PRESETS.small, maxPositions: 128 };
export const SIZES: Record<string, SizeSpec> = {
  "1M": { config: PRESETS.bench, batch: 16, context: 128 },
  "25M": {
    config: {
      ...base,
      vocabSize: 8192,
      hiddenSize: 512,
      numLayers: 6,
      numHeads: 8,
      numKvHeads: 8,
      intermediateSize: 1536,
      maxPositions: 128,
      tieEmbeddings: false,
    },
    batch: 16,
    context: 128,
  },
  "100M": {
    config: {
      ...base,
      vocabSize: 32000,
      hiddenSize: 768,
      numLayers: 12,
      numHeads: 12,
      numKvHeads: 12,
      intermediateSize: 2048,
      maxPositions: 128,
      tieEmbeddings: true,
    },
    batch: 16,
    context: 128,
  },
  "0.5B": { config: qwen05, batch: 4, context: 128 },
  "0.5B-adam8": { config: qwen05, batch: 4, context: 128, stateBits: 8 },
  "0.5B-recompute": { config: qwen05, batch: 4, context: 128, recompute: true },
  "0.5B-adam8-recompute": { config: qwen05, batch: 4, context: 128, stateBits: 8, recompute: true },
  "0.5B-lora16": { config: qwen05, batch: 4, context: 128, lora: 16 },
  "0.5B-lora16-recompute": { config: qwen05, batch: 4, context: 128, lora: 16, recompute: true },
  "0.5B-kl": { config: qwen05, batch: 4, context: 128, reference: "fp32" },
  "0.5B-kl-bf16": { config: qwen05, batch: 4, context: 128, reference: "bf16" },
  "0.5B-lora16-bf16": { config: qwen05, batch: 4, context: 128, lora: 16, baseBf16: true },
  "0.5B-lora16-bf16-recompute": { config: qwen05, batch: 4, context: 128, lora: 16, baseBf16: true, recompute: true },
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const r4 = (x: number) => Number(x.toFixed(4));
const loadAverage = () => os.loadavg().map((x) => Number(x.toFixed(2)));
const SAMPLE_BATCHES = [1, 8];
const SAMPLE_TOKENS = 32;
/** Untimed steps before the timed ones, on both sides (why: at the first use). */
const WARM_UP_STEPS = 2;

/** What one side prints for one round. */
interface SideRound {
  stepSeconds: number[];
  stepCpuSeconds: number[];
  /** The kernel's share of the CPU time (page faults on fresh buffers, mostly): absent from older rounds. */
  stepSystemSeconds?: number[];
  /** Minor page faults per timed step: what most of the system time is (fresh pages the kernel had to zero). */
  stepPageFaults?: number[];
  peakRssMiB: number;
  /** tokens/s by "batch<N>"; absent for rows that do not sample (LoRA, 8-bit moments, recomputation, KL). */
  sampledTokensPerSecond?: Record<string, number> | null;
  [key: string]: unknown;
}

const samples = (spec: SizeSpec) => !spec.lora && !spec.stateBits && !spec.recompute && !spec.reference && !spec.baseBf16;

/** Kernel time of one step by kernel name and by kernel + input shapes (tf.profile), largest first, with the step's wall and CPU time. */
async function profileOneStep(run: () => Promise<unknown>) {
  const addon = loadBlasAddon().addon;
  addon?.gemmStats?.(true);
  const w0 = performance.now();
  const c0 = process.cpuUsage();
  const info = await tf.profile(async () => {
    await run();
  });
  const c = process.cpuUsage(c0);
  const products = productTimes(addon?.gemmStats?.(true));
  const byKernel = kernelTimesByName(info);
  const kernelMs = [...byKernel.values()].reduce((sum, e) => sum + e.ms, 0);
  const top = (times: Map<string, KernelTime>, n: number) =>
    Object.fromEntries(
      [...times.entries()]
        .sort((a, b) => b[1].ms - a[1].ms)
        .slice(0, n)
        .map(([name, e]) => [name, { ms: Math.round(e.ms), calls: e.calls, share: Number((e.ms / kernelMs).toFixed(3)) }]),
    );
  return {
    stepWallSeconds: r4((performance.now() - w0) / 1000),
    stepCpuSeconds: r4((c.user + c.system) / 1e6),
    kernelSeconds: r4(kernelMs / 1000),
    byKernel: top(byKernel, 20),
    byShape: top(kernelTimesByShape(info), 15),
    ...(products ? { products } : {}),
  };
}

interface OneDnnShape {
  type: "fp32" | "bf16";
  batch: number;
  M: number;
  N: number;
  K: number;
  ta: number;
  tb: number;
  calls: number;
  encodeMs: number;
  execMs: number;
}

/**
 * The addon's own timers for the step's matrix products (wall ms inside the kernel): fp32 in total (how many of them
 * ran on oneDNN), bf16 split into rounding the operands and oneDNN, with each oneDNN geometry's GFLOP/s, largest
 * first.
 */
function productTimes(json: string | undefined) {
  if (!json || json === "null") return null;
  const s = JSON.parse(json) as {
    fp32: { calls: number; ms: number; gflop: number; onednnCalls: number };
    onednn: { primitivesCreated: number; shapes: OneDnnShape[] };
  };
  const all = s.onednn.shapes.map((g) => {
    const gflop = (2 * g.batch * g.M * g.N * g.K * g.calls) / 1e9;
    return {
      type: g.type,
      shape: `${g.batch}x[${g.M},${g.K}]x[${g.K},${g.N}]${g.ta ? " ta" : ""}${g.tb ? " tb" : ""}`,
      calls: g.calls,
      encodeMs: Math.round(g.encodeMs),
      execMs: Math.round(g.execMs),
      execGflops: Math.round(gflop / (g.execMs / 1000)),
    };
  });
  all.sort((a, b) => b.encodeMs + b.execMs - (a.encodeMs + a.execMs));
  const shapes = all.filter((g) => g.type === "bf16");
  const sum = (f: (g: (typeof shapes)[number]) => number) => shapes.reduce((t, g) => t + f(g), 0);
  return {
    fp32: {
      calls: s.fp32.calls,
      onOneDnn: s.fp32.onednnCalls,
      ms: Math.round(s.fp32.ms),
      gflops: s.fp32.ms ? Math.round(s.fp32.gflop / (s.fp32.ms / 1000)) : 0,
    },
    bf16: {
      calls: sum((g) => g.calls),
      encodeMs: sum((g) => g.encodeMs),
      execMs: sum((g) => g.execMs),
      primitivesCreated: s.onednn.primitivesCreated,
    },
    bf16Shapes: shapes.slice(0, 20),
    fp32OneDnnShapes: all.filter((g) => g.type === "fp32").slice(0, 20),
  };
}

/** One (size, backend) round, in this process: two warm-up steps, `steps` timed steps, then sampling (or a profile). */
async function child(sizeName: string, backendName: string, steps: number, profile = false): Promise<void> {
  const spec = SIZES[sizeName];
  const backend = await selectBackend({ ROLLOUT_LAB_BACKEND: backendName });
  if (process.env.ROLLOUT_LAB_BENCH_COMPUTE === "bf16") {
    const compute = selectMatmulCompute("bf16");
    if (compute.compute !== "bf16") throw new Error(`--compute bf16: ${compute.reason}`);
  }
  const t0 = performance.now();
  const model = new DecoderLM(spec.config, { seed: 0 });
  if (spec.lora) model.enableLora({ rank: spec.lora, alpha: 2 * spec.lora, targets: ["q_proj", "k_proj", "v_proj", "o_proj"] });
  if (spec.baseBf16 && !model.storeFrozenAsBf16()) throw new Error("bf16 weights need the native kernels");
  model.recomputeActivations = spec.recompute === true;
  const reference = spec.reference ? model.frozenCopy({ bf16: spec.reference === "bf16" }) : null;
  if (spec.reference === "bf16" && !reference?.hasBf16Weights) throw new Error("bf16 weights need the native kernels");
  useHeapMarkingFor(countParameters(spec.config), backend.backend); // as the trainer does (trainer/loop/real/real-deps.ts)
  const initSeconds = (performance.now() - t0) / 1000;
  // PyTorch's AdamW defaults: weight decay 0.01 (bench/pytorch-sizes.py passes the same explicitly).
  const opt = new AdamW(model.trainableVariables(), { lr: 1e-4, weightDecay: 0.01, maxGradNorm: 1, stateBits: spec.stateBits ?? 32 });
  const stepper = new GuardedStepper(model, opt);
  const rng = new Rng(0);
  const demos = Array.from({ length: spec.batch }, () => ({
    tokens: Array.from({ length: spec.context }, () => rng.int(spec.config.vocabSize)),
    lossMask: new Array<number>(spec.context).fill(1),
  }));
  const referenceBatch = padBatch(demos.map((d) => d.tokens));
  const run = () => {
    if (reference) tf.tidy(() => tokenLogProbs(reference, referenceBatch).logp.dataSync());
    return stepper.step([{ weight: 1, loss: () => ({ loss: maskedNll(model, demos), metrics: {} }) }]);
  };
  // Two warm-up steps on both sides: the first allocates the optimizer moments, and PyTorch's next step still
  // faulted in 4 s of fresh pages (its system time; 17 s against a steady 6.6-7.1 s under bf16 autocast on 0.5B),
  // which with 2 timed steps made every round's median half warm-up.
  for (let i = 0; i < WARM_UP_STEPS; i++) await run();
  if (profile) {
    console.log(JSON.stringify(await profileOneStep(run)));
    return;
  }
  const stepSeconds: number[] = [];
  const stepCpuSeconds: number[] = [];
  const stepSystemSeconds: number[] = [];
  const stepPageFaults: number[] = [];
  for (let i = 0; i < steps; i++) {
    // ROLLOUT_LAB_BENCH_MARKS=1: each timed step's start on CLOCK_MONOTONIC (process.hrtime's clock), to cut a
    // `perf record -k CLOCK_MONOTONIC` profile of the child down to its steady steps (`perf report --time a,b`)
    if (process.env.ROLLOUT_LAB_BENCH_MARKS === "1") console.error(`step ${i} starts at ${Number(process.hrtime.bigint()) / 1e9}`);
    const w0 = performance.now();
    const c0 = process.cpuUsage();
    const faults0 = process.resourceUsage().minorPageFault;
    await run();
    const c = process.cpuUsage(c0);
    stepPageFaults.push(process.resourceUsage().minorPageFault - faults0);
    stepSeconds.push(r4((performance.now() - w0) / 1000));
    stepCpuSeconds.push(r4((c.user + c.system) / 1e6));
    stepSystemSeconds.push(r4(c.system / 1e6));
  }
  let sampledTokensPerSecond: Record<string, number> | null = null;
  if (samples(spec)) {
    sampledTokensPerSecond = {};
    for (const b of SAMPLE_BATCHES) {
      const prompts = Array.from({ length: b }, () => Array.from({ length: 16 }, () => rng.int(spec.config.vocabSize)));
      generate(model, prompts, { maxNewTokens: 4, rng }); // warm-up
      const s0 = performance.now();
      generate(model, prompts, { maxNewTokens: SAMPLE_TOKENS, rng });
      sampledTokensPerSecond[`batch${b}`] = Number(((b * SAMPLE_TOKENS) / ((performance.now() - s0) / 1000)).toFixed(1));
    }
  }
  const round: SideRound = {
    backend: backend.backend,
    nativeKernels: backend.nativeKernels.enabled,
    parameters: countParameters(spec.config),
    trainable: model.trainableVariables().reduce((n, v) => n + v.size, 0),
    initSeconds: Number(initSeconds.toFixed(1)),
    stepSeconds,
    stepCpuSeconds,
    stepSystemSeconds,
    stepPageFaults,
    optimizerStateBits: opt.stateBits,
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    sampledTokensPerSecond,
  };
  console.log(JSON.stringify(round));
}

function pytorchArgs(spec: SizeSpec, steps: number): string[] {
  const c = spec.config;
  return [
    path.join(path.dirname(fileURLToPath(import.meta.url)), "pytorch-sizes.py"),
    "--vocab",
    c.vocabSize,
    "--d",
    c.hiddenSize,
    "--layers",
    c.numLayers,
    "--heads",
    c.numHeads,
    "--kv-heads",
    c.numKvHeads,
    "--mlp",
    c.intermediateSize,
    "--batch",
    spec.batch,
    "--context",
    spec.context,
    "--steps",
    steps,
    "--threads",
    1,
    ...(samples(spec) ? ["--sample", SAMPLE_TOKENS, "--sample-batches", SAMPLE_BATCHES.join(",")] : []),
    ...(spec.reference ? ["--reference"] : []),
    ...(c.tieEmbeddings ? ["--tied"] : []),
    ...(c.attentionBias ? ["--bias"] : []),
    ...(spec.lora ? ["--lora", spec.lora] : []),
  ].map(String);
}

/** A side's process for one round: its JSON line, or why it failed (the error line, not minified source). */
function runSide(command: string, args: string[], env: NodeJS.ProcessEnv): SideRound | { failed: string } {
  const r = spawnSync(command, args, { encoding: "utf8", maxBuffer: 1 << 24, env });
  try {
    return JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "") as SideRound;
  } catch {
    const lines = `${r.stderr}\n${r.stdout}`.split("\n").filter((l) => l.length < 300);
    const why =
      lines.find((l) => /out of bounds|RuntimeError|allocat|heap/i.test(l)) ??
      lines.find((l) => /Error/.test(l)) ??
      `exit ${r.status ?? r.signal}`;
    return { failed: why.trim().slice(0, 160) };
  }
}

interface SideFigures {
  stepWallSeconds: { min: number; median: number };
  stepCpuSeconds: { min: number; median: number };
  stepSystemSeconds: { median: number } | null;
  peakRssMiB: { median: number; max: number };
  sampledTokensPerSecond: Record<string, number> | null;
}

function figures(rounds: SideRound[]): SideFigures {
  const wall = rounds.flatMap((r) => r.stepSeconds);
  const cpu = rounds.flatMap((r) => r.stepCpuSeconds);
  const sys = rounds.flatMap((r) => r.stepSystemSeconds ?? []);
  const rss = rounds.map((r) => r.peakRssMiB);
  const sampled = rounds[0].sampledTokensPerSecond;
  return {
    stepWallSeconds: { min: r4(Math.min(...wall)), median: r4(median(wall)) },
    stepCpuSeconds: { min: r4(Math.min(...cpu)), median: r4(median(cpu)) },
    stepSystemSeconds: sys.length ? { median: r4(median(sys)) } : null,
    peakRssMiB: { median: median(rss), max: Math.max(...rss) },
    sampledTokensPerSecond: sampled
      ? Object.fromEntries(Object.keys(sampled).map((k) => [k, median(rounds.map((r) => r.sampledTokensPerSecond?.[k] ?? 0))]))
      : null,
  };
}

const ratio = (a: number, b: number) => Number((a / b).toFixed(2));

/** Ours against PyTorch: < 1 is faster or smaller for time and RSS; sampling > 1 is faster. */
function versus(ours: SideRound[], theirs: SideRound[]) {
  const a = figures(ours);
  const b = figures(theirs);
  return {
    wallMedian: ratio(a.stepWallSeconds.median, b.stepWallSeconds.median),
    wallMin: ratio(a.stepWallSeconds.min, b.stepWallSeconds.min),
    cpuMedian: ratio(a.stepCpuSeconds.median, b.stepCpuSeconds.median),
    cpuMin: ratio(a.stepCpuSeconds.min, b.stepCpuSeconds.min),
    perRoundWall: ours.map((r, i) => (theirs[i] ? ratio(median(r.stepSeconds), median(theirs[i].stepSeconds)) : null)),
    peakRss: ratio(a.peakRssMiB.median, b.peakRssMiB.median),
    sampling:
      a.sampledTokensPerSecond && b.sampledTokensPerSecond
        ? Object.fromEntries(
            Object.keys(a.sampledTokensPerSecond).map((k) => [k, ratio(a.sampledTokensPerSecond![k], b.sampledTokensPerSecond![k])]),
          )
        : null,
  };
}

/**
 * One core's measured peak for the step's arithmetic (best of three ~0.1 s tries: a neighbour only lowers a try):
 * vdpbf16ps under --compute bf16, else the wider fp32 FMA the CPU has. null without the addon or the instruction.
 */
function perCorePeak(bf16: boolean): { unit: string; gflops: number } | null {
  const addon = loadBlasAddon().addon;
  if (!addon?.peakGflops) return null;
  let best: { unit: string; gflops: number } | null = null;
  for (const unit of bf16 ? ["avx512_bf16"] : ["avx2 fp32", "avx512 fp32"]) {
    const tries = [0, 1, 2].map(() => addon.peakGflops!(unit, 1, 100_000_000));
    if (tries.includes(null)) continue;
    const gflops = Math.max(...(tries as number[]));
    if (!best || gflops > best.gflops) best = { unit, gflops: Math.round(gflops) };
  }
  return best;
}

/**
 * The step's matrix products (trainer/policy/step-flops.ts) at one core's peak: CPU time no implementation of this
 * arithmetic in this precision goes below here; over our median, how near our step runs to it; over PyTorch's
 * median, the lowest CPU ratio reachable against it (a goal under it cannot be met on this CPU).
 */
function productFloor(
  spec: SizeSpec,
  peak: { unit: string; gflops: number } | null,
  oursCpuMedian: number,
  pytorchCpuMedian: number | null,
) {
  const { gflop } = stepProductFlops({
    config: spec.config,
    batch: spec.batch,
    context: spec.context,
    loraRank: spec.lora,
    recompute: spec.recompute,
    reference: spec.reference !== undefined,
  });
  const cpuSeconds = peak ? gflop / peak.gflops : null;
  return {
    gflop: Number(gflop.toFixed(1)),
    peak: peak ? { unit: peak.unit, gflopsPerCore: peak.gflops } : "not measured (no native addon or no such instruction)",
    cpuSeconds: cpuSeconds === null ? null : r4(cpuSeconds),
    // how near our step runs to it (1 = nothing but products, at the peak)
    vsOursCpuMedian: cpuSeconds === null ? null : ratio(cpuSeconds, oursCpuMedian),
    vsPytorchCpuMedian: cpuSeconds !== null && pytorchCpuMedian ? ratio(cpuSeconds, pytorchCpuMedian) : null,
  };
}

function parent(): void {
  const arg = (flag: string) => {
    const i = process.argv.indexOf(flag);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const sizes = (arg("--sizes") && !arg("--sizes")!.startsWith("--") ? arg("--sizes")!.split(",") : Object.keys(SIZES)).filter(
    (s) => s in SIZES,
  );
  const backends = arg("--backends")?.split(",") ?? ["wasm", "cpu"];
  const steps = Number(arg("--steps") ?? 3);
  const roundCount = Number(arg("--rounds") ?? 3);
  const bf16 = arg("--compute") === "bf16";
  const oursEnv = bf16 ? { ...process.env, ROLLOUT_LAB_BENCH_COMPUTE: "bf16" } : process.env;
  const self = fileURLToPath(import.meta.url);
  const python = process.argv.includes("--no-pytorch") ? null : findTorchPython();
  const blasThreads = process.env.OPENBLAS_NUM_THREADS ?? String(os.availableParallelism());
  const torchEnv = { ...process.env, ...PYTORCH_ALLOCATOR_ENV, OPENBLAS_NUM_THREADS: blasThreads, OMP_NUM_THREADS: "1" };
  const loadBefore = loadAverage();
  const peak = perCorePeak(bf16);
  const rows: Record<string, unknown>[] = [];
  const profiles: Record<string, unknown>[] = [];
  for (const size of sizes) {
    const spec = SIZES[size];
    const sides = [...backends.map((b) => `ours:${b}`), ...(python ? ["pytorch"] : [])];
    const rounds: Record<string, (SideRound | { failed: string })[]> = Object.fromEntries(sides.map((s) => [s, []]));
    const loads: number[][] = [];
    for (let i = 0; i < roundCount; i++) {
      // Even rounds: ours first; odd rounds: PyTorch first.
      for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
        if (rounds[side].some((r) => "failed" in r)) continue; // a side that crashed once (e.g. out of heap) is not retried
        loads.push(loadAverage());
        rounds[side].push(
          side === "pytorch"
            ? runSide(python!, [...pytorchArgs(spec, steps), ...(bf16 ? ["--autocast-bf16"] : [])], torchEnv)
            : runSide(process.execPath, ["--import", "tsx", self, "--child", size, side.slice(5), String(steps)], oursEnv),
        );
      }
    }
    loads.push(loadAverage());
    if (process.argv.includes("--profile")) {
      for (const backend of backends) {
        const out = spawnSync(process.execPath, ["--import", "tsx", self, "--child", size, backend, "0", "profile"], {
          env: oursEnv, // --compute bf16 profiles the bf16 step
          encoding: "utf8",
          maxBuffer: 1 << 24,
        });
        const profiled = { size, side: backend, profile: JSON.parse(out.stdout.trim().split("\n").at(-1) || "null") as unknown };
        profiles.push(profiled);
        console.error(JSON.stringify(profiled));
      }
    }
    const ok = (side: string) => rounds[side].filter((r): r is SideRound => !("failed" in r));
    const torchRounds = python ? ok("pytorch") : [];
    for (const side of sides) {
      const good = ok(side);
      const failed = rounds[side].find((r) => "failed" in r) as { failed: string } | undefined;
      const row: Record<string, unknown> = {
        size,
        batch: `${spec.batch}x${spec.context}`,
        side: side === "pytorch" ? "pytorch" : side.slice(5),
        parameters: countParameters(spec.config),
        rounds: good.length,
        ...(failed ? { failed: failed.failed } : {}),
      };
      if (good.length) {
        Object.assign(row, figures(good), { trainable: good[0].trainable ?? null, nativeKernels: good[0].nativeKernels ?? null });
        if (side !== "pytorch" && torchRounds.length) row.vsPytorch = versus(good, torchRounds);
        if (side !== "pytorch") {
          const torchCpu = torchRounds.length ? figures(torchRounds).stepCpuSeconds.median : null;
          row.productFloor = productFloor(spec, peak, figures(good).stepCpuSeconds.median, torchCpu);
        }
      }
      row.loadAverageDuring = { min: Math.min(...loads.map((l) => l[0])), max: Math.max(...loads.map((l) => l[0])) };
      rows.push(row);
      console.error(JSON.stringify(row));
    }
  }
  console.log(
    JSON.stringify(
      {
        conditions: {
          cores: os.availableParallelism(),
          loadAverageBefore: loadBefore,
          loadAverageAfter: loadAverage(),
          rounds: roundCount,
          stepsPerSidePerRound: steps,
          ours: { node: process.version, openblasThreads: blasThreads },
          pytorch: python
            ? { python, torchThreads: 1, openblasThreads: blasThreads, allocator: PYTORCH_ALLOCATOR_ENV }
            : "no python3 with torch on this machine (apt-get install python3-torch), or --no-pytorch",
          optimizer: "AdamW lr 1e-4, weight decay 0.01, grad-norm clip 1, both sides",
        },
        rows,
        ...(profiles.length ? { profiles } : {}),
      },
      null,
      2,
    ),
  );
}

if (process.argv[2] === "--child") {
  await child(process.argv[3], process.argv[4], Number(process.argv[5]), process.argv[6] === "profile");
  tf.disposeVariables();
} else {
  parent();
}
