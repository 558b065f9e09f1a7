/**
 * Trainer speed against PyTorch on this machine (`npm run bench:trainer`), printed as JSON.
 *
 * The same work on both sides: the reference decoder (vocab 256, d 128, 4 layers, 4 heads, context 128, MLP 512,
 * 1.1M parameters), one step = forward + backward + AdamW (lr 1e-4, weight decay 0.01, grad-norm clip 1) over 16 rows
 * of 128 tokens = 16 x 127 predicted positions; sampling = KV-cache decoding of 112 new tokens after a 16-token
 * prompt at batch 1 and 16. PyTorch runs bench/pytorch-reference.py at its best thread split (1 x 1, 1 x cores and
 * cores x 1 are tried first) with glibc's allocator kept from returning memory every step (bench/pytorch.ts).
 *
 * A shared machine's speed drifts, so neither side is measured once: the benchmark runs rounds that alternate ours
 * and PyTorch's, reversing the order each round, and reports min and median of wall and CPU (process) time per step,
 * the ratio of medians and the spread of the per-round ratios, and the conditions (load average before and after,
 * threads, allocator). Without python3 + torch (Debian: apt-get install python3-torch) only our side is measured.
 *
 * Flags: --rounds N (default 4), --steps N (timed steps per side per round, default 3), --quick (1 round, 2 steps,
 *        short sampling: a smoke test), --no-pytorch, --sizes [...] (the size table of bench/trainer-sizes.ts instead).
 */
import os from "node:os";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../trainer/backend/select";
import { DecoderLM } from "../trainer/policy/model";
import { PRESETS, countParameters, type ModelConfig } from "../trainer/policy/config";
import { AdamW } from "../trainer/policy/optimizer";
import { Rng } from "../trainer/policy/rng";
import { generate } from "../trainer/policy/sampling";
import { GuardedStepper } from "../trainer/update/step";
import { maskedNll } from "../trainer/update/sft";
import {
  describeSplit,
  findTorchPython,
  PYTORCH_ALLOCATOR_ENV,
  runPytorch,
  threadSplits,
  type PytorchRound,
  type ThreadSplit,
} from "./pytorch";

if (process.argv.includes("--sizes")) {
  await import("./trainer-sizes");
  process.exit(0);
}

const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const quick = process.argv.includes("--quick");
const rounds = flag("--rounds", quick ? 1 : 4);
const stepsPerRound = flag("--steps", quick ? 2 : 3);
const BATCH = 16;
const CONTEXT = 128;
const PROMPT = 16;
const newTokens = quick ? 16 : CONTEXT - PROMPT;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const r4 = (x: number) => Number(x.toFixed(4));
const summary = (xs: number[]) => ({ min: r4(Math.min(...xs)), median: r4(median(xs)) });
const loadAverage = () => os.loadavg().map((x) => Number(x.toFixed(2)));

/** Training FLOPs per predicted position, fwd + bwd: 6 x (matmul parameters) + 12 x layers x context x d (PaLM app. B). */
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

/** Our side, built once and kept warm between rounds (as PyTorch's process warms up before its timed steps). */
async function ourSide(config: ModelConfig) {
  const rng = new Rng(0);
  const model = new DecoderLM(config, { seed: 0 });
  const opt = new AdamW(model.trainableVariables(), { lr: 1e-4, weightDecay: 0.01, maxGradNorm: 1 });
  const stepper = new GuardedStepper(model, opt);
  const demos = Array.from({ length: BATCH }, () => ({
    tokens: Array.from({ length: CONTEXT }, () => rng.int(config.vocabSize)),
    lossMask: new Array<number>(CONTEXT).fill(1),
  }));
  const step = () => stepper.step([{ weight: 1, loss: () => ({ loss: maskedNll(model, demos), metrics: {} }) }]);
  await step(); // warm-up: kernels compiled, optimizer moments allocated
  const tensorsAfterWarmup = tf.memory().numTensors;
  return {
    // The step is async (it yields to the event loop between micro-batches): an un-awaited step times nothing.
    async round(): Promise<PytorchRound> {
      const stepSeconds: number[] = [];
      const stepCpuSeconds: number[] = [];
      for (let i = 0; i < stepsPerRound; i++) {
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        await step();
        const c = process.cpuUsage(c0);
        stepSeconds.push(r4((performance.now() - t0) / 1000));
        stepCpuSeconds.push(r4((c.user + c.system) / 1e6));
      }
      const sampledTokensPerSecond: Record<string, number> = {};
      for (const b of [1, BATCH]) {
        const prompts = Array.from({ length: b }, () => Array.from({ length: PROMPT }, () => rng.int(config.vocabSize)));
        generate(model, prompts, { maxNewTokens: 4, rng }); // warm-up
        const t0 = performance.now();
        generate(model, prompts, { maxNewTokens: newTokens, rng });
        sampledTokensPerSecond[`batch${b}`] = Math.round((b * newTokens) / ((performance.now() - t0) / 1000));
      }
      return { torch: "", parameters: countParameters(config), stepSeconds, stepCpuSeconds, sampledTokensPerSecond };
    },
    leakedTensors: () => tf.memory().numTensors - tensorsAfterWarmup,
    dispose() {
      opt.dispose();
      model.dispose();
    },
  };
}

/** PyTorch's fastest thread split here, from one short run of each. */
function calibrate(python: string): { split: ThreadSplit; tried: Record<string, number> } {
  const tried: Record<string, number> = {};
  let best: { split: ThreadSplit; seconds: number } | null = null;
  for (const split of threadSplits()) {
    const seconds = median(runPytorch(python, split, { steps: 3, quick: true }).stepSeconds);
    tried[describeSplit(split)] = r4(seconds);
    if (!best || seconds < best.seconds) best = { split, seconds };
  }
  return { split: best!.split, tried };
}

function sideFigures(rs: PytorchRound[]) {
  const wall = rs.flatMap((r) => r.stepSeconds);
  const cpu = rs.flatMap((r) => r.stepCpuSeconds);
  const sampled = Object.fromEntries(
    Object.keys(rs[0].sampledTokensPerSecond).map((k) => [
      k,
      { median: median(rs.map((r) => r.sampledTokensPerSecond[k])), max: Math.max(...rs.map((r) => r.sampledTokensPerSecond[k])) },
    ]),
  );
  return { stepWallSeconds: summary(wall), stepCpuSeconds: summary(cpu), sampledTokensPerSecond: sampled };
}

const loadBefore = loadAverage();
const backend = await selectBackend();
const config = PRESETS.bench;
const ours = await ourSide(config);
const python = process.argv.includes("--no-pytorch") ? null : findTorchPython();
const calibration = python ? calibrate(python) : null;

const ourRounds: PytorchRound[] = [];
const theirRounds: PytorchRound[] = [];
for (let i = 0; i < rounds; i++) {
  // Even rounds: ours first; odd rounds: PyTorch first, so drift during a round does not favour one side.
  const order = i % 2 === 0 ? ["ours", "pytorch"] : ["pytorch", "ours"];
  for (const side of order) {
    if (side === "ours") ourRounds.push(await ours.round());
    else if (python && calibration) theirRounds.push(runPytorch(python, calibration.split, { steps: stepsPerRound, quick }));
  }
}

const oursFigures = sideFigures(ourRounds);
const theirs = theirRounds.length ? sideFigures(theirRounds) : null;
const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
const perRoundRatios = theirRounds.map((t, i) => ratio(median(ourRounds[i].stepSeconds), median(t.stepSeconds)));
const positions = BATCH * (CONTEXT - 1);

const result = {
  conditions: {
    cores: os.availableParallelism(),
    loadAverageBefore: loadBefore,
    loadAverageAfter: loadAverage(),
    rounds,
    stepsPerSidePerRound: stepsPerRound,
    ours: {
      backend: backend.backend,
      reason: backend.reason,
      simd: backend.simd,
      threads: backend.threads,
      nativeKernels: backend.nativeKernels,
    },
    pytorch:
      python && calibration
        ? {
            python,
            torch: theirRounds[0]?.torch,
            threads: describeSplit(calibration.split),
            splitsTried: calibration.tried,
            allocator: PYTORCH_ALLOCATOR_ENV,
          }
        : {
            measured: false,
            reason:
              python === null && !process.argv.includes("--no-pytorch")
                ? "no python3 with torch (apt-get install python3-torch)"
                : "--no-pytorch",
          },
  },
  work: {
    parameters: { ours: countParameters(config), pytorch: theirRounds[0]?.parameters ?? null },
    predictedPositionsPerStep: positions,
    optimizer: "AdamW lr 1e-4, weight decay 0.01, grad-norm clip 1",
    sampling: `${newTokens} new tokens after a ${PROMPT}-token prompt`,
  },
  ours: {
    ...oursFigures,
    trainGflopsPerSecond: Number(((flopsPerToken(config, CONTEXT) * positions) / oursFigures.stepWallSeconds.median / 1e9).toFixed(2)),
  },
  pytorch: theirs,
  // < 1: our step is faster. The ratio of the medians, and the range of the per-round ratios.
  stepTimeVsPytorch: theirs
    ? {
        wallMedian: ratio(oursFigures.stepWallSeconds.median, theirs.stepWallSeconds.median),
        wallMin: ratio(oursFigures.stepWallSeconds.min, theirs.stepWallSeconds.min),
        cpuMedian: ratio(oursFigures.stepCpuSeconds.median, theirs.stepCpuSeconds.median),
        perRound: perRoundRatios,
      }
    : null,
  // > 1: we sample faster (medians over the rounds).
  samplingSpeedVsPytorch: theirs
    ? Object.fromEntries(
        Object.keys(oursFigures.sampledTokensPerSecond).map((k) => [
          k,
          ratio(oursFigures.sampledTokensPerSecond[k].median, theirs.sampledTokensPerSecond[k].median),
        ]),
      )
    : null,
  matMulGflopsPerSecond: {
    "2048x128x512": Number(benchMatMul(2048, 128, 512).toFixed(2)),
    "2048x512x128": Number(benchMatMul(2048, 512, 128).toFixed(2)),
    "1024x1024x1024": Number(benchMatMul(1024, 1024, 1024).toFixed(2)),
  },
  leakedTensorsPerRun: ours.leakedTensors(),
};
ours.dispose();
console.log(JSON.stringify(result, null, 2));
