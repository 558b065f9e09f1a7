/**
 * The fused native kernels must compute what the stock TF.js compositions compute — values and gradients — or the
 * trainer would learn something different depending on whether OpenBLAS was installed. Each check runs the same
 * thing twice on the wasm backend: native kernels on (fused path), then off (stock path).
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../backend/select";
import { disableNativeKernels, tryEnableNativeKernels } from "../backend/native/index";
import { loadBlasAddon } from "../backend/native/addon";
import { DecoderLM } from "./model";
import type { ModelConfig } from "./config";
import { padBatch, tokenLogProbs } from "./logprobs";
import { fusedOpsAvailable, fusedTokenLogProbs } from "./fused";
import { generate } from "./sampling";
import { computeLogProbs } from "./logprobs";
import { AdamW, globalGradNorm } from "./optimizer";
import { Rng } from "./rng";

const built = loadBlasAddon().addon !== null;
/** Grouped-query heads (4 query heads over 2 kv heads) so the kv-head accumulation in attention is exercised. */
const CONFIG: ModelConfig = {
  vocabSize: 64, hiddenSize: 32, numLayers: 2, numHeads: 4, numKvHeads: 2, intermediateSize: 48,
  maxPositions: 32, ropeTheta: 10000, rmsNormEps: 1e-5, tieEmbeddings: false, attentionBias: false,
};

before(async () => {
  if (built) await selectBackend({ ROLLOUT_LAB_BACKEND: "wasm" });
});
after(async () => {
  if (built) await tryEnableNativeKernels("wasm");
  await tf.setBackend("cpu");
});

/** Runs `f` on the fused path, then on the stock path (native kernels off), restoring them afterwards. */
async function bothPaths<T>(f: () => T): Promise<{ fused: T; stock: T }> {
  const report = await tryEnableNativeKernels("wasm");
  assert.ok(fusedOpsAvailable(), `fused kernels should be registered: ${report.reason}`);
  const fused = f();
  disableNativeKernels("wasm");
  assert.equal(fusedOpsAvailable(), false);
  const stock = f();
  await tryEnableNativeKernels("wasm");
  return { fused, stock };
}

function assertClose(a: ArrayLike<number>, b: ArrayLike<number>, what: string, tol = 1e-4): void {
  assert.equal(a.length, b.length, `${what}: lengths differ`);
  let scale = 1e-6;
  for (let i = 0; i < b.length; i++) scale = Math.max(scale, Math.abs(b[i]));
  for (let i = 0; i < a.length; i++) {
    assert.ok(Math.abs(a[i] - b[i]) <= tol * scale, `${what}[${i}]: fused ${a[i]} vs stock ${b[i]} (scale ${scale})`);
  }
}

const batch = padBatch([
  [3, 14, 15, 9, 26, 5, 35, 8, 9, 7, 9, 3, 2],
  [27, 18, 28, 18, 28, 45, 9, 0, 4, 52, 3],
  [1, 61, 8, 33, 9, 8, 8, 7, 4, 9],
]);

test("fused decoder = stock ops: log-probs, entropies and the gradient of every weight", { skip: !built }, async () => {
  const model = new DecoderLM(CONFIG, { seed: 11, initStd: 0.2 });
  const vars = model.trainableVariables();
  const run = () =>
    tf.tidy(() => {
      const { value, grads } = tf.variableGrads(() => {
        const { logp, entropy } = tokenLogProbs(model, batch, true);
        // a weighted sum so each token's log-prob and entropy gets a different upstream gradient
        const w = tf.linspace(0.5, 1.5, batch.T).reshape([1, batch.T]);
        return tf.add(tf.sum(tf.mul(logp, w)), tf.mul(0.3, tf.sum(tf.mul(entropy as tf.Tensor, w)))) as tf.Scalar;
      }, vars);
      const lp = tokenLogProbs(model, batch, true);
      return {
        loss: value.dataSync()[0],
        logp: lp.logp.dataSync(),
        entropy: (lp.entropy as tf.Tensor).dataSync(),
        grads: Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, g.dataSync()])),
      };
    });
  const { fused, stock } = await bothPaths(run);
  assertClose([fused.loss], [stock.loss], "loss");
  assertClose(fused.logp, stock.logp, "log-probs");
  assertClose(fused.entropy, stock.entropy, "entropies");
  assert.equal(Object.keys(fused.grads).length, vars.length);
  for (const name of Object.keys(stock.grads)) assertClose(fused.grads[name], stock.grads[name], `d loss / d ${name}`, 2e-4);
  model.dispose();
});

for (const [label, config] of [
  ["Llama layout", CONFIG],
  ["Qwen2 layout (q/k/v biases, tied embeddings)", { ...CONFIG, attentionBias: true, tieEmbeddings: true }],
] as const) {
  test(`fused path, ${label}: native KV-cache decoding of left-padded prompts equals full recomputation, no leaks`, { skip: !built }, async () => {
    await tryEnableNativeKernels("wasm");
    const model = new DecoderLM(config, { seed: 5, initStd: 0.2 });
    // biases start at zero; give them values so a kernel that dropped them would be caught
    for (const [name, v] of model.params) if (name.endsWith(".bias")) v.assign(tf.randomNormal(v.shape, 0, 0.5, "float32", 9));
    const prompts = [[10, 20, 30, 40, 50, 11, 12], [60, 7], [1, 2, 3]];
    const before = tf.memory().numTensors;
    const samples = generate(model, prompts, { maxNewTokens: 14, temperature: 1, rng: new Rng(3) });
    assert.equal(tf.memory().numTensors, before, "sampling leaked tensors");
    const full = computeLogProbs(model, prompts.map((p, i) => [...p, ...samples[i].tokens]));
    samples.forEach((s, i) => assertClose(s.logprobs, full[i].slice(prompts[i].length), `row ${i} sampled log-probs`, 1e-4));
    model.dispose();
  });
}

test("fused AdamW with clipping and weight decay = the stock update, step after step", { skip: !built }, async () => {
  const run = () => {
    const model = new DecoderLM(CONFIG, { seed: 2, initStd: 0.1 });
    const opt = new AdamW(model.trainableVariables(), { lr: 3e-3, weightDecay: 0.1, maxGradNorm: 0.5 });
    const norms: number[] = [];
    for (let step = 0; step < 3; step++) {
      const { grads, value } = tf.variableGrads(() => tf.neg(tf.mean(tokenLogProbs(model, batch).logp)) as tf.Scalar, model.trainableVariables());
      const norm = globalGradNorm(grads);
      norms.push(norm);
      opt.apply(grads, norm);
      tf.dispose([value, ...Object.values(grads)]);
    }
    const weights = [...model.params.values()].map((v) => v.dataSync());
    const moments = [...opt.moments.values()].map((m) => m.v.dataSync());
    opt.dispose();
    model.dispose();
    return { norms, weights, moments };
  };
  const { fused, stock } = await bothPaths(run);
  assertClose(fused.norms, stock.norms, "global gradient norms");
  fused.weights.forEach((w, i) => assertClose(w, stock.weights[i], `weights ${i} after 3 steps`, 2e-4));
  fused.moments.forEach((m, i) => assertClose(m, stock.moments[i], `second moments ${i}`, 5e-4));
});

test("fused kernels reject bad input with a clear error instead of reading outside their tables", { skip: !built }, async () => {
  await tryEnableNativeKernels("wasm");
  const logits = tf.randomNormal([2, 8]) as tf.Tensor2D;
  assert.throws(() => fusedTokenLogProbs(logits, new Int32Array([1, 8])), /token id outside the vocabulary of 8/);
  logits.dispose();
  const model = new DecoderLM(CONFIG, { seed: 1 });
  assert.throws(() => model.forward(new Int32Array(33).fill(1), 1, 33), /exceeds maxPositions 32/);
  model.dispose();
});
