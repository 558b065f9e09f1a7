/**
 * Trainer speed on this machine (`npm run bench:trainer`), printed as JSON:
 * backend, parameter count, tokens per step, median training-step time (forward + backward + AdamW) and the
 * GFLOP/s it achieves, KV-cache sampling tokens/s, and the backend's plain matMul GFLOP/s — next to PyTorch running
 * the same decoder on the same machine (bench/pytorch-reference.py), when python3 with torch is installed
 * (Debian: apt-get install python3-torch). Without it the figures measured on the project's first CI machine are
 * printed instead and marked as not measured here: machines differ by 2x and more, only a same-machine ratio means
 * anything.
 * Reference shape: vocab 256, d 128, 4 layers, 4 heads, context 128, MLP 512, batch 16 x 128 tokens.
 *
 * Flags: --steps N (timed training steps, default 5), --quick (fewer repetitions, for smoke tests),
 *        --no-pytorch (skip the PyTorch run), --sizes [1M,25M,100M,0.5B,0.5B-lora16] (the size table of
 *        bench/trainer-sizes.ts instead: every size on wasm and on cpu, each in its own process).
 */
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../trainer/backend/select";
import { DecoderLM } from "../trainer/policy/model";
import { PRESETS, countParameters, type ModelConfig } from "../trainer/policy/config";
import { AdamW } from "../trainer/policy/optimizer";
import { Rng } from "../trainer/policy/rng";
import { generate } from "../trainer/policy/sampling";
import { GuardedStepper } from "../trainer/update/step";
import { maskedNll } from "../trainer/update/sft";
import { measurePytorch } from "./pytorch";

if (process.argv.includes("--sizes")) {
  await import("./trainer-sizes");
  process.exit(0);
}

const quick = process.argv.includes("--quick");
const stepsArg = process.argv.indexOf("--steps");
const timedSteps = stepsArg >= 0 ? Number(process.argv[stepsArg + 1]) : quick ? 2 : 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Training FLOPs per token, fwd + bwd: 6 x (matmul parameters) + 12 x layers x context x d (attention scores), PaLM app. B. */
function flopsPerToken(c: ModelConfig, context: number): number {
  const matmulParams = countParameters(c) - c.vocabSize * c.hiddenSize * (c.tieEmbeddings ? 0 : 1);
  return 6 * matmulParams + 12 * c.numLayers * context * c.hiddenSize;
}

function benchMatMul(m: number, k: number, n: number): number {
  const a = tf.randomNormal([m, k]);
  const b = tf.randomNormal([k, n]);
  // No tf.tidy around dataSync(): tidy walks a returned typed array element by element (seconds for 1M values).
  const once = () => {
    const c = tf.matMul(a, b);
    c.dataSync();
    c.dispose();
  };
  once();
  const times: number[] = [];
  for (let i = 0; i < (quick ? 2 : 5); i++) {
    const t0 = performance.now();
    once();
    times.push((performance.now() - t0) / 1000);
  }
  tf.dispose([a, b]);
  return (2 * m * k * n) / median(times) / 1e9;
}

function benchTrainStep(config: ModelConfig, batch: number, context: number) {
  const rng = new Rng(0);
  const model = new DecoderLM(config, { seed: 0 });
  const opt = new AdamW(model.trainableVariables(), { lr: 1e-4, maxGradNorm: 1 });
  const stepper = new GuardedStepper(model, opt);
  const demos = Array.from({ length: batch }, () => ({
    tokens: Array.from({ length: context }, () => rng.int(config.vocabSize)),
    lossMask: new Array<number>(context).fill(1),
  }));
  const run = () => stepper.step([{ weight: 1, loss: () => ({ loss: maskedNll(model, demos), metrics: {} }) }]);
  run(); // warm-up: kernels compiled, optimizer moments allocated
  const before = tf.memory().numTensors;
  const times: number[] = [];
  for (let i = 0; i < timedSteps; i++) {
    const t0 = performance.now();
    run();
    times.push((performance.now() - t0) / 1000);
  }
  const leaked = tf.memory().numTensors - before;
  const stepSeconds = median(times);
  const tokens = batch * context;
  const gflops = (flopsPerToken(config, context) * tokens) / stepSeconds / 1e9;

  const prompt = 16;
  const newTokens = quick ? 16 : context - prompt;
  const sampling: Record<string, number> = {};
  for (const b of [1, batch]) {
    const prompts = Array.from({ length: b }, () => Array.from({ length: prompt }, () => rng.int(config.vocabSize)));
    generate(model, prompts, { maxNewTokens: 4, rng }); // warm-up
    const t0 = performance.now();
    generate(model, prompts, { maxNewTokens: newTokens, rng });
    sampling[`batch${b}`] = (b * newTokens) / ((performance.now() - t0) / 1000);
  }
  opt.dispose();
  model.dispose();
  return { stepSeconds, stepTimes: times, tokens, gflops, sampling, leakedTensorsPerRun: leaked };
}

const backend = await selectBackend();
const config = PRESETS.bench;
const train = benchTrainStep(config, 16, 128);
const sampled = Object.fromEntries(Object.entries(train.sampling).map(([k, v]) => [k, Math.round(v)]));
// PyTorch runs after TF.js has finished, so the two never share the cores.
const pytorch = process.argv.includes("--no-pytorch") ? null : measurePytorch({ steps: timedSteps, quick });
const ratio = (ours: number, theirs: number) => Number((ours / theirs).toFixed(2));
const here = pytorch?.measured ? pytorch : null;
const result = {
  backend: backend.backend,
  backendReason: backend.reason,
  simd: backend.simd,
  threads: backend.threads,
  nativeKernels: backend.nativeKernels,
  model: { ...config, parameters: countParameters(config) },
  tokensPerStep: train.tokens,
  medianStepSeconds: Number(train.stepSeconds.toFixed(4)),
  stepSeconds: train.stepTimes.map((t) => Number(t.toFixed(4))),
  trainGflopsPerSecond: Number(train.gflops.toFixed(2)),
  sampledTokensPerSecond: sampled,
  matMulGflopsPerSecond: {
    "2048x128x512": Number(benchMatMul(2048, 128, 512).toFixed(2)),
    "2048x512x128": Number(benchMatMul(2048, 512, 128).toFixed(2)),
    "1024x1024x1024": Number(benchMatMul(1024, 1024, 1024).toFixed(2)),
  },
  pytorchReference: pytorch,
  // < 1 means faster than PyTorch; the target is a step time within 1.5x
  stepTimeVsPytorch: here ? ratio(train.stepSeconds, here.medianStepSeconds) : null,
  // > 1 means faster than PyTorch
  samplingSpeedVsPytorch: here
    ? Object.fromEntries(Object.entries(sampled).map(([k, v]) => [k, ratio(v, here.sampledTokensPerSecond[k] ?? NaN)]))
    : null,
  leakedTensorsPerRun: train.leakedTensorsPerRun,
};
console.log(JSON.stringify(result, null, 2));
