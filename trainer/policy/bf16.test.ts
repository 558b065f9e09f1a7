/**
 * bfloat16 storage of weights without a gradient (policy.frozenWeights "bf16"): the kernels against float32 on the
 * widened values, on wasm and on the cpu backend (the path past the wasm heap), and what a run sees — a LoRA base
 * and a KL reference at half their bytes, computing within bf16 rounding of float32.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../backend/select";
import { loadBlasAddon } from "../backend/native/addon";
import { Bf16Matrix, bf16Available } from "./bf16";
import { DecoderLM } from "./model";
import type { ModelConfig } from "./config";
import { computeLogProbs, padBatch, tokenLogProbs } from "./logprobs";
import { AdamW } from "./optimizer";
import { generate } from "./sampling";
import { Rng } from "./rng";
import { loadLoraTensors, loadModelTensors, loraTensors, modelTensors } from "../checkpoint/weights";

const skip = loadBlasAddon().addon === null ? "native kernels not built (npm run build:native)" : false;

/** Tied embeddings and q/k/v biases (Qwen2's layout), grouped-query heads. */
const CONFIG: ModelConfig = {
  vocabSize: 96,
  hiddenSize: 48,
  numLayers: 2,
  numHeads: 4,
  numKvHeads: 2,
  intermediateSize: 80,
  maxPositions: 64,
  ropeTheta: 10000,
  rmsNormEps: 1e-6,
  tieEmbeddings: true,
  attentionBias: true,
};

const BATCH = padBatch([
  [1, 5, 9, 14, 20, 33, 41, 2],
  [7, 3, 88, 60],
]);

const logProbs = (m: DecoderLM) => tf.tidy(() => tokenLogProbs(m, BATCH).logp.arraySync() as number[][]).flat();
const maxDiff = (a: number[], b: number[]) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);
const matrixBytes = (m: DecoderLM) => m.specs.filter((s) => s.shape.length === 2).reduce((n, s) => n + 4 * s.shape[0] * s.shape[1], 0);
const halved = (m: DecoderLM) =>
  m.specs
    .filter((s) => s.shape.length === 2)
    .reduce((n, s) => n + 4 * s.shape[0] * s.shape[1] - 4 * Math.ceil((s.shape[0] * s.shape[1]) / 2), 0);

/** The negated summed log-prob of BATCH and its gradient for `vars`. */
function lossAndGrads(m: DecoderLM, vars: tf.Variable[]): { loss: number; grads: Float32Array[] } {
  const { value, grads } = tf.variableGrads(() => tf.neg(tf.sum(tokenLogProbs(m, BATCH).logp)) as tf.Scalar, vars);
  const out = { loss: value.dataSync()[0], grads: vars.map((v) => grads[v.name].dataSync() as Float32Array) };
  tf.dispose([value, ...Object.values(grads)]);
  return out;
}

/** `steps` AdamW steps raising BATCH's log-probs; returns the optimizer for the caller to dispose. */
function train(m: DecoderLM, steps: number): AdamW {
  const opt = new AdamW(m.trainableVariables(), { lr: 1e-2 });
  for (let i = 0; i < steps; i++) {
    const { grads, value } = tf.variableGrads(() => tf.neg(tf.sum(tokenLogProbs(m, BATCH).logp)) as tf.Scalar, m.trainableVariables());
    opt.apply(grads, 1);
    tf.dispose([value, ...Object.values(grads)]);
  }
  return opt;
}

const relativeError = (a: Float32Array, b: Float32Array) => {
  let num = 0;
  let den = 0;
  for (let i = 0; i < a.length; i++) {
    num += (a[i] - b[i]) ** 2;
    den += b[i] ** 2;
  }
  return Math.sqrt(num / den);
};

test("bfloat16 rounds as torch.bfloat16 does: to nearest, ties to even, NaN and infinities kept", { skip }, async () => {
  await selectBackend({ ROLLOUT_LAB_BACKEND: "cpu" });
  // values and results read off torch 1.13: torch.tensor(x).bfloat16().float()
  const x = [1, 1.00390625, 1.01171875, -2.0078125, 3.4028235e38, Infinity, -0, 1e-40, 0.1];
  const expected = [1, 1, 1.015625, -2, Infinity, Infinity, -0, 9.183549615799121e-41, 0.10009765625];
  const input = tf.tensor2d([...x, NaN], [1, x.length + 1]);
  const m = Bf16Matrix.encode(input);
  const wide = m.decode();
  const back = Array.from(wide.dataSync());
  tf.dispose([input, wide]);
  expected.forEach((v, i) => assert.ok(Object.is(back[i], v), `${x[i]} -> ${back[i]}, torch gives ${v}`));
  assert.ok(Number.isNaN(back[x.length]));
  assert.equal(m.bytes, 4 * Math.ceil((x.length + 1) / 2), "two values per 4 bytes");
  m.dispose();
});

for (const backend of ["wasm", "cpu"] as const) {
  test(
    `${backend}: a bfloat16 matrix multiplies (either way round), differentiates and gathers as float32 does on its values`,
    { skip },
    async () => {
      await selectBackend({ ROLLOUT_LAB_BACKEND: backend });
      assert.ok(bf16Available());
      // native/blas/src/bf16.c's three paths: a few rows widened in registers; 16 MB blocks across the outputs;
      // blocks across the shared dimension K, summed (K > N). Odd sizes, and more than one block.
      const check = ([M, K, N]: number[], transposed: boolean) => {
        const what = `[${M}, ${K}] x [${K}, ${N}]${transposed ? " (transposed)" : ""}`;
        const w = tf.randomNormal(transposed ? [N, K] : [K, N], 0, 0.05, "float32", 3) as tf.Tensor2D;
        const packed = Bf16Matrix.encode(w);
        const wide = packed.decode();
        const x = tf.randomNormal([M, K], 0, 1, "float32", 4) as tf.Tensor2D;
        const probe = tf.randomNormal([M, N], 0, 1, "float32", 5);
        const want = tf.matMul(x, wide, false, transposed);
        const got = packed.matMul(x, transposed);
        assert.deepEqual(got.shape, [M, N]);
        assert.ok(relativeError(got.dataSync() as Float32Array, want.dataSync() as Float32Array) < 1e-5, `${what}: product`);
        const gGot = tf.grad((xi: tf.Tensor) => tf.sum(tf.mul(packed.matMul(xi as tf.Tensor2D, transposed), probe)))(x);
        const gWant = tf.grad((xi: tf.Tensor) => tf.sum(tf.mul(tf.matMul(xi as tf.Tensor2D, wide, false, transposed), probe)))(x);
        assert.ok(relativeError(gGot.dataSync() as Float32Array, gWant.dataSync() as Float32Array) < 1e-5, `${what}: input gradient`);
        // bf16's 8 significant bits: every value within a relative 2^-8 (half a unit in the last place) of its float32
        const a = w.dataSync();
        const b = wide.dataSync();
        for (let i = 0; i < a.length; i += 97) assert.ok(Math.abs(a[i] - b[i]) <= Math.abs(a[i]) * 2 ** -8, `${a[i]} -> ${b[i]}`);
        tf.dispose([w, wide, x, probe, want, got, gGot, gWant]);
        packed.dispose();
      };
      for (const shape of [
        [5, 301, 7001],
        [37, 301, 20011],
        [37, 20011, 211],
      ]) {
        check(shape, false);
        check(shape, true);
      }
      const table = tf.randomNormal([11, 7], 0, 1, "float32", 6) as tf.Tensor2D;
      const packed = Bf16Matrix.encode(table);
      const ids = Int32Array.from([3, 0, 10, 3]);
      const rows = packed.rows(ids);
      const wide = packed.decode();
      const want = tf.gather(wide, tf.tensor1d(ids, "int32"));
      assert.deepEqual(Array.from(rows.dataSync()), Array.from(want.dataSync()));
      assert.throws(() => packed.rows(Int32Array.from([11])), /outside the 11-row table/);
      tf.dispose([table, rows, wide, want]);
      packed.dispose();
    },
  );

  test(
    `${backend}: a LoRA base in bfloat16 takes half the bytes, scores and trains within bf16 rounding, and samples what it scores`,
    { skip },
    async () => {
      await selectBackend({ ROLLOUT_LAB_BACKEND: backend });
      const make = () => {
        const m = new DecoderLM(CONFIG, { seed: 11, initStd: 0.08 });
        m.enableLora({ rank: 4, alpha: 8, targets: ["q_proj", "k_proj", "v_proj", "o_proj"] }, 2);
        // adapters away from B = 0, so their gradients flow through the base's backward pass too
        for (const v of m.trainableVariables()) v.assign(tf.randomNormal(v.shape, 0, 0.05, "float32", 7));
        return m;
      };
      const fp32 = make();
      const model = make();
      const bytes = tf.memory().numBytes;
      assert.equal(model.storeFrozenAsBf16(), true);
      assert.equal(bytes - tf.memory().numBytes, halved(model), "every frozen matrix at 2 bytes a value");
      assert.throws(() => model.p("model.layers.0.mlp.up_proj.weight"), /stored in bfloat16/);

      const lp32 = logProbs(fp32);
      const lp16 = logProbs(model);
      const diff = maxDiff(lp16, lp32);
      assert.ok(diff > 0 && diff < 0.02, `log-probs differ by ${diff}`);

      // the adapters' gradients pass back through the bf16 projections and the bf16 tied head
      const g32 = lossAndGrads(fp32, fp32.trainableVariables());
      const g16 = lossAndGrads(model, model.trainableVariables());
      g16.grads.forEach((g, i) => assert.ok(relativeError(g, g32.grads[i]) < 0.03, `adapter ${i}: ${relativeError(g, g32.grads[i])}`));

      const opt = train(model, 3);
      const loss = -logProbs(model).reduce((a, b) => a + b, 0);
      assert.ok(loss < g16.loss, `the adapters learned: ${g16.loss} -> ${loss}`);

      // sampling goes through the bf16 kernels at batch size 1 per step; its log-probs are the ones the update scores
      const prompt = [4, 8, 15];
      const [sample] = generate(model, [prompt], { maxNewTokens: 6, temperature: 1, rng: new Rng(3) });
      const [scored] = computeLogProbs(model, [[...prompt, ...sample.tokens]], 8, 1);
      sample.logprobs.forEach((v, i) => {
        const want = scored[prompt.length + i];
        assert.ok(Math.abs(v - want) < 1e-4, `token ${i}: sampled ${v}, scored ${want}`);
      });

      // a checkpoint round trip (widened to float32 on disk) gives back the same bf16 weights
      const restored = new DecoderLM(CONFIG, { seed: 99 });
      restored.enableLora({ rank: 4, alpha: 8, targets: ["q_proj", "k_proj", "v_proj", "o_proj"] });
      restored.storeFrozenAsBf16();
      loadModelTensors(restored, modelTensors(model), "round trip");
      loadLoraTensors(restored, loraTensors(model), "round trip");
      assert.deepEqual(logProbs(restored), logProbs(model));

      // its KL reference shares the bf16 base: it costs the adapters' snapshot only
      const before = tf.memory().numBytes;
      const reference = model.frozenCopy();
      const adapterBytes = model.trainableVariables().reduce((n, v) => n + 4 * v.size, 0);
      assert.ok(tf.memory().numBytes - before < adapterBytes + 64 * 1024, "the reference copied the base");
      assert.deepEqual(logProbs(reference), logProbs(model));
      reference.dispose();
      assert.ok(logProbs(model).every(Number.isFinite), "disposing the reference left the shared base alone");

      for (const m of [fp32, model, restored]) m.dispose();
      opt.dispose();
    },
  );

  test(
    `${backend}: a full-parameter run's bfloat16 KL reference takes half the matrices' bytes and stays the policy it was`,
    { skip },
    async () => {
      await selectBackend({ ROLLOUT_LAB_BACKEND: backend });
      const policy = new DecoderLM(CONFIG, { seed: 5, initStd: 0.08 });
      const start = logProbs(policy);
      const before = tf.memory().numBytes;
      const reference = policy.frozenCopy({ bf16: true });
      const added = tf.memory().numBytes - before;
      assert.ok(reference.hasBf16Weights);
      const vectors = policy.specs.filter((s) => s.shape.length === 1).reduce((n, s) => n + 4 * s.shape[0], 0);
      const rotary = 4 * (2 * CONFIG.maxPositions * (CONFIG.hiddenSize / CONFIG.numHeads) + (CONFIG.hiddenSize / CONFIG.numHeads) ** 2);
      assert.equal(added, matrixBytes(policy) - halved(policy) + vectors + rotary, "matrices at 2 bytes, norms and biases at 4");
      const atStart = logProbs(reference);
      assert.ok(maxDiff(atStart, start) < 0.02, `reference vs policy: ${maxDiff(atStart, start)}`);

      const opt = train(policy, 2);
      assert.ok(maxDiff(logProbs(policy), start) > 0.05, "the policy moved");
      assert.deepEqual(logProbs(reference), atStart, "the reference did not move with it");
      // refreshed (after an SFT warm-start): the policy's new weights, rounded again
      reference.copyWeightsFrom(policy);
      assert.ok(maxDiff(logProbs(reference), logProbs(policy)) < 0.02);
      reference.dispose();
      opt.dispose();
      policy.dispose();
    },
  );
}
