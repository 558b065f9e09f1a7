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
 * After the TF.js rows of a size, PyTorch trains the same shape in the same run (bench/pytorch-sizes.py, one intra-op
 * thread: on 2 cores that split was the fastest, 2.65 s vs 3.5-3.7 s at 25M), so both share the machine's state.
 * Debian's torch does its matMuls in the same OpenBLAS as ours, on OpenBLAS's own threads (2 here, whatever the
 * intra-op setting): both sides multiply on both cores.
 * Flags: --sizes 1M,25M (subset), --backends cpu (subset), --steps N (timed steps, default 2), --no-pytorch.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../trainer/backend/select";
import { DecoderLM } from "../trainer/policy/model";
import { PRESETS, countParameters, type ModelConfig } from "../trainer/policy/config";
import { AdamW } from "../trainer/policy/optimizer";
import { Rng } from "../trainer/policy/rng";
import { generate } from "../trainer/policy/sampling";
import { GuardedStepper } from "../trainer/update/step";
import { maskedNll } from "../trainer/update/sft";
import { padBatch, tokenLogProbs } from "../trainer/policy/logprobs";
import { findTorchPython } from "./pytorch";

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

/** One (size, backend) measurement, in this process. */
async function child(sizeName: string, backendName: string, steps: number): Promise<void> {
  const spec = SIZES[sizeName];
  const backend = await selectBackend({ ROLLOUT_LAB_BACKEND: backendName });
  const t0 = performance.now();
  const model = new DecoderLM(spec.config, { seed: 0 });
  if (spec.lora) model.enableLora({ rank: spec.lora, alpha: 2 * spec.lora, targets: ["q_proj", "k_proj", "v_proj", "o_proj"] });
  if (spec.baseBf16 && !model.storeFrozenAsBf16()) throw new Error("bf16 weights need the native kernels");
  model.recomputeActivations = spec.recompute === true;
  const reference = spec.reference ? model.frozenCopy({ bf16: spec.reference === "bf16" }) : null;
  if (spec.reference === "bf16" && !reference?.hasBf16Weights) throw new Error("bf16 weights need the native kernels");
  const initSeconds = (performance.now() - t0) / 1000;
  const opt = new AdamW(model.trainableVariables(), { lr: 1e-4, maxGradNorm: 1, stateBits: spec.stateBits ?? 32 });
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
  const times: number[] = [];
  for (let i = 0; i <= steps; i++) {
    const s = performance.now();
    await run(); // the first is the warm-up: optimizer moments allocated
    if (i > 0) times.push((performance.now() - s) / 1000);
  }
  const step = median(times);
  // KV-cache sampling at batch 1 (a full-parameter model only: LoRA decodes through the same base), after a short
  // warm-up: 16-token prompt, 32 new tokens.
  let sampledTokensPerSecond: number | null = null;
  if (!spec.lora && !spec.stateBits && !spec.recompute && !spec.reference) {
    const prompt = [Array.from({ length: 16 }, () => rng.int(spec.config.vocabSize))];
    generate(model, prompt, { maxNewTokens: 4, rng });
    const s0 = performance.now();
    generate(model, prompt, { maxNewTokens: 32, rng });
    sampledTokensPerSecond = Number((32 / ((performance.now() - s0) / 1000)).toFixed(1));
  }
  console.log(
    JSON.stringify({
      backend: backend.backend,
      nativeKernels: backend.nativeKernels.enabled,
      parameters: countParameters(spec.config),
      trainable: model.trainableVariables().reduce((n, v) => n + v.size, 0),
      initSeconds: Number(initSeconds.toFixed(1)),
      stepSeconds: Number(step.toFixed(3)),
      tokensPerSecond: Math.round((spec.batch * spec.context) / step),
      sampledTokensPerSecond,
      optimizerStateBits: opt.stateBits,
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
}

function pytorchRow(python: string, spec: SizeSpec, steps: number): Record<string, unknown> {
  const c = spec.config;
  const args = [
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
    ...(spec.lora || spec.stateBits || spec.recompute || spec.reference ? [] : ["--sample", 32]),
    ...(spec.reference ? ["--reference"] : []),
    ...(c.tieEmbeddings ? ["--tied"] : []),
    ...(c.attentionBias ? ["--bias"] : []),
    ...(spec.lora ? ["--lora", spec.lora] : []),
  ].map(String);
  const r = spawnSync(python, args, { encoding: "utf8" });
  try {
    return JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "") as Record<string, unknown>;
  } catch {
    return { failed: (r.stderr || `exit ${r.status}`).trim().split("\n").at(-1)?.slice(0, 160) };
  }
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
  const steps = Number(arg("--steps") ?? 2);
  const self = fileURLToPath(import.meta.url);
  const python = process.argv.includes("--no-pytorch") ? null : findTorchPython();
  const rows: Record<string, unknown>[] = [];
  for (const size of sizes) {
    for (const backend of backends) {
      const started = Date.now();
      const r = spawnSync(process.execPath, ["--import", "tsx", self, "--child", size, backend, String(steps)], {
        encoding: "utf8",
        maxBuffer: 1 << 24,
      });
      const line = r.stdout.trim().split("\n").at(-1) ?? "";
      const spec = SIZES[size];
      let row: Record<string, unknown>;
      try {
        row = { size, batch: `${spec.batch}x${spec.context}`, ...JSON.parse(line) };
      } catch {
        // The error line, not a line of minified backend source that happens to contain "Error".
        const lines = `${r.stderr}\n${r.stdout}`.split("\n").filter((l) => l.length < 300);
        const why =
          lines.find((l) => /out of bounds|RuntimeError|allocat|heap/i.test(l)) ??
          lines.find((l) => /Error/.test(l)) ??
          `exit ${r.status ?? r.signal}`;
        row = {
          size,
          batch: `${spec.batch}x${spec.context}`,
          backend,
          parameters: countParameters(spec.config),
          failed: why.trim().slice(0, 160),
        };
      }
      row.wallSeconds = Math.round((Date.now() - started) / 1000);
      rows.push(row);
      console.error(JSON.stringify(row));
    }
    if (python) {
      const torch = pytorchRow(python, SIZES[size], steps);
      // Ratios against PyTorch on this machine: step time < 1 is faster, RSS < 1 is smaller.
      for (const row of rows.filter((r) => r.size === size && typeof r.stepSeconds === "number")) {
        if (typeof torch.stepSeconds === "number") row.stepVsPytorch = Number(((row.stepSeconds as number) / torch.stepSeconds).toFixed(2));
        if (typeof torch.peakRssMiB === "number") row.rssVsPytorch = Number(((row.peakRssMiB as number) / torch.peakRssMiB).toFixed(2));
        // > 1: faster than PyTorch
        if (typeof torch.sampledTokensPerSecond === "number" && typeof row.sampledTokensPerSecond === "number") {
          row.samplingVsPytorch = Number(((row.sampledTokensPerSecond as number) / torch.sampledTokensPerSecond).toFixed(2));
        }
      }
      const torchRow = { size, batch: `${SIZES[size].batch}x${SIZES[size].context}`, backend: "pytorch", ...torch };
      rows.push(torchRow);
      console.error(JSON.stringify(torchRow));
    }
  }
  console.log(
    JSON.stringify(
      {
        pytorch: python
          ? `${python} with torch, 1 intra-op thread`
          : "no python3 with torch on this machine (apt-get install python3-torch)",
        rows,
      },
      null,
      2,
    ),
  );
}

if (process.argv[2] === "--child") {
  await child(process.argv[3], process.argv[4], Number(process.argv[5]));
  tf.disposeVariables();
} else {
  parent();
}
