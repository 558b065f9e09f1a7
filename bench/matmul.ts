/**
 * Kernel benchmark for the trainer's reference decoder (vocab 256, d 128, 4 layers, 4 heads, context 128, MLP 512,
 * batch 16 x 128 tokens). Two parts:
 *   1. matMul GFLOP/s per shape the model runs (forward and both gradient products), for the stock wasm kernel
 *      (untransposed / transposed / batched), the stock cpu kernel, and OpenBLAS through native kernels on cpu and
 *      on wasm (data read from the wasm heap).
 *   2. One whole training step (forward + backward + AdamW) of trainer/policy's DecoderLM on each configuration,
 *      plus the time per kernel of the fastest one (tf.profile), to show what limits it.
 * Run: npx tsx bench/matmul.ts [--micro-only | --step-only] [--steps N] [--only <label prefix>] [--no-profile] [--all]
 *   --all adds the slow configurations: loop2d attention and the cpu backend (~45 s/step).
 */
import * as tf from "@tensorflow/tfjs";
import "@tensorflow/tfjs-backend-wasm";
import { setWasmPaths } from "@tensorflow/tfjs-backend-wasm";
import { localWasmDir } from "../trainer/backend/select";
import { disableNativeKernels, nativeThreadCount, tryEnableNativeKernels } from "../trainer/backend/native/index";
import { loadBlasAddon } from "../trainer/backend/native/addon";
import { DecoderLM } from "../trainer/policy/model";
import { PRESETS } from "../trainer/policy/config";
import { setAttentionMode, type AttentionMode } from "../trainer/policy/attention";
import { tokenLogProbs, type TokenBatch } from "../trainer/policy/logprobs";
import { AdamW, globalGradNorm } from "../trainer/policy/optimizer";
import { kernelTimesByName } from "./kernel-times";

const args = process.argv.slice(2);
const STEPS = Number(args[args.indexOf("--steps") + 1]) || 3;

interface Shape {
  name: string;
  a: number[];
  b: number[];
  ta: boolean;
  tb: boolean;
}

const R = 16 * 128; // rows = batch x tokens
/** Every product of one training step: y = x W, dx = dy W^T, dW = x^T dy, for each projection, plus attention. */
const SHAPES: Shape[] = [];
for (const [label, k, n] of [
  ["qkvo", 128, 128],
  ["gate/up", 128, 512],
  ["down", 512, 128],
  ["logits", 128, 256],
] as const) {
  SHAPES.push({ name: `${label} fwd [${R},${k}]x[${k},${n}]`, a: [R, k], b: [k, n], ta: false, tb: false });
  SHAPES.push({ name: `${label} dx [${R},${n}]x[${k},${n}]^T`, a: [R, n], b: [k, n], ta: false, tb: true });
  SHAPES.push({ name: `${label} dW [${R},${k}]^T x[${R},${n}]`, a: [R, k], b: [R, n], ta: true, tb: false });
}
SHAPES.push({ name: "attn q k^T 64x[128,32]x[128,32]^T", a: [64, 128, 32], b: [64, 128, 32], ta: false, tb: true });
SHAPES.push({ name: "attn p v 64x[128,128]x[128,32]", a: [64, 128, 128], b: [64, 128, 32], ta: false, tb: false });
SHAPES.push({ name: "attn d(p) 64x[128,32]x[128,32]^T", a: [64, 128, 32], b: [64, 128, 32], ta: false, tb: true });
SHAPES.push({ name: "attn loop2d 64 x 2-D [128,32]x[32,128]", a: [128, 32], b: [32, 128], ta: false, tb: false });

function flops(s: Shape): number {
  const M = s.ta ? s.a[s.a.length - 1] : s.a[s.a.length - 2];
  const K = s.ta ? s.a[s.a.length - 2] : s.a[s.a.length - 1];
  const N = s.tb ? s.b[s.b.length - 2] : s.b[s.b.length - 1];
  const batch = s.a.length > 2 ? s.a[0] : 1;
  return 2 * M * N * K * batch;
}

/** Median seconds of `fn`, after one warm-up, repeating for ~budget seconds (at least 3 times, at most 30). */
function timeIt(fn: () => void, budget = 0.4): number {
  fn();
  const times: number[] = [];
  const start = performance.now();
  while (times.length < 3 || (times.length < 30 && performance.now() - start < budget * 1000)) {
    const t0 = performance.now();
    fn();
    times.push((performance.now() - t0) / 1000);
  }
  times.sort((x, y) => x - y);
  return times[Math.floor(times.length / 2)];
}

function matMulGflops(s: Shape): number {
  const a = tf.randomNormal(s.a);
  const b = tf.randomNormal(s.b);
  const loop = s.name.includes("loop2d");
  const secs = timeIt(
    () => {
      if (loop) {
        // 64 separate 2-D products, the way attention's loop2d mode runs on wasm
        const outs: tf.Tensor[] = [];
        for (let i = 0; i < 64; i++) outs.push(tf.matMul(a, b));
        outs[63].dataSync();
        tf.dispose(outs);
      } else {
        const y = tf.matMul(a, b, s.ta, s.tb);
        y.dataSync();
        y.dispose();
      }
    },
    tf.getBackend() === "cpu" && !loadBlasAddon().addon ? 0.1 : 0.4,
  );
  tf.dispose([a, b]);
  return (flops(s) * (loop ? 64 : 1)) / secs / 1e9;
}

async function useBackend(name: "wasm" | "cpu", native: boolean): Promise<void> {
  if (name === "wasm") setWasmPaths(localWasmDir());
  if (!(await tf.setBackend(name))) throw new Error(`${name} backend did not start`);
  await tf.ready();
  if (native) {
    const r = await tryEnableNativeKernels(name);
    if (!r.enabled) throw new Error(r.reason);
  } else {
    disableNativeKernels(name);
  }
}

async function micro(): Promise<void> {
  const configs: [string, "wasm" | "cpu", boolean][] = [
    ["wasm stock", "wasm", false],
    ["wasm+BLAS", "wasm", true],
    ["cpu+BLAS", "cpu", true],
  ];
  const table: Record<string, Record<string, string>> = {};
  for (const [label, backend, native] of configs) {
    await useBackend(backend, native);
    for (const s of SHAPES) (table[s.name] ??= {})[label] = matMulGflops(s).toFixed(1);
  }
  // The stock cpu kernel is a JS triple loop: one representative shape is enough to place it.
  await useBackend("cpu", false);
  table[SHAPES[0].name]["cpu stock"] = matMulGflops(SHAPES[0]).toFixed(2);
  console.log("\nmatMul GFLOP/s (median; wasm is single-threaded here, OpenBLAS uses", nativeThreadCount(), "threads)");
  console.table(table);
}

function referenceBatch(): TokenBatch {
  const B = 16;
  const T = 129; // 128 positions go through the model (tokenLogProbs predicts ids[1..T-1])
  const ids = new Int32Array(B * T);
  let s = 7;
  for (let i = 0; i < ids.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    ids[i] = s % 256;
  }
  return { ids, B, T };
}

function trainStep(model: DecoderLM, opt: AdamW, batch: TokenBatch): number {
  const { value, grads } = tf.variableGrads(() => tf.neg(tf.mean(tokenLogProbs(model, batch).logp)) as tf.Scalar);
  const loss = value.dataSync()[0];
  opt.apply(grads, globalGradNorm(grads));
  tf.dispose([value, ...Object.values(grads)]);
  return loss;
}

/** Median wall seconds and process CPU seconds per step (CPU time is honest when other work shares the cores). */
async function stepTime(backend: "wasm" | "cpu", native: boolean, mode: AttentionMode): Promise<{ wall: number; cpu: number }> {
  await useBackend(backend, native);
  setAttentionMode(mode);
  const model = new DecoderLM(PRESETS.bench, { seed: 1 });
  const opt = new AdamW(model.trainableVariables(), { lr: 1e-3 });
  const batch = referenceBatch();
  trainStep(model, opt, batch); // warm-up: kernel setup, heap growth
  const times: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    trainStep(model, opt, batch);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / 1e6);
    times.push((performance.now() - t0) / 1000);
  }
  opt.dispose();
  model.dispose();
  setAttentionMode(null);
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return { wall: median(times), cpu: median(cpus) };
}

async function profileStep(backend: "wasm" | "cpu", mode: AttentionMode): Promise<void> {
  await useBackend(backend, true);
  setAttentionMode(mode);
  const model = new DecoderLM(PRESETS.bench, { seed: 1 });
  const opt = new AdamW(model.trainableVariables(), { lr: 1e-3 });
  const batch = referenceBatch();
  trainStep(model, opt, batch);
  const info = await tf.profile(() => {
    trainStep(model, opt, batch);
  });
  const byKernel = kernelTimesByName(info);
  const total = [...byKernel.values()].reduce((s, e) => s + e.ms, 0);
  const rows = [...byKernel.entries()].sort((x, y) => y[1].ms - x[1].ms).slice(0, 14);
  console.log(`\nkernel time in one step, ${backend}+BLAS ${mode} (sum ${total.toFixed(0)} ms, profiling adds overhead):`);
  console.table(
    Object.fromEntries(rows.map(([k, e]) => [k, { ms: +e.ms.toFixed(1), calls: e.calls, share: `${((100 * e.ms) / total).toFixed(0)}%` }])),
  );
  opt.dispose();
  model.dispose();
  setAttentionMode(null);
}

async function steps(): Promise<void> {
  const native = loadBlasAddon().addon !== null;
  const all = args.includes("--all");
  type Run = [string, "wasm" | "cpu", boolean, AttentionMode];
  let runs: Run[] = [
    ["wasm stock, batched attention", "wasm", false, "batched"],
    ...(all ? ([["wasm stock, loop2d attention", "wasm", false, "loop2d"]] as Run[]) : []),
    ...(native
      ? ([
          ["wasm+BLAS, batched attention", "wasm", true, "batched"],
          ...(all ? ([["wasm+BLAS, loop2d attention", "wasm", true, "loop2d"]] as Run[]) : []),
          // The cpu backend's JS elementwise ops make this ~45 s/step (measured): only on request.
          ...(all ? ([["cpu+BLAS, batched attention", "cpu", true, "batched"]] as Run[]) : []),
        ] as Run[])
      : []),
  ];
  const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : null;
  if (only) runs = runs.filter(([label]) => label.startsWith(only));
  const tokens = 16 * 128;
  const table: Record<string, { "s/step": number; "cpu s/step": number; "tokens/s": number }> = {};
  for (const [label, backend, nat, mode] of runs) {
    const { wall, cpu } = await stepTime(backend, nat, mode);
    table[label] = { "s/step": +wall.toFixed(3), "cpu s/step": +cpu.toFixed(3), "tokens/s": Math.round(tokens / wall) };
    console.log(`${label}: ${wall.toFixed(3)} s/step (${cpu.toFixed(3)} s CPU)`);
  }
  console.log(`\nwhole training step, reference shape, median of ${STEPS} (npm run bench:trainer compares with PyTorch on this machine):`);
  console.table(table);
  if (native && !args.includes("--no-profile")) await profileStep("wasm", "batched");
}

console.log(`native addon: ${loadBlasAddon().reason}`);
if (!args.includes("--step-only")) await micro();
if (!args.includes("--micro-only")) await steps();
