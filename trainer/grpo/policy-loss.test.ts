import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { computePolicyLoss, computeTokenStats, readMetrics, type PolicyLossConfig, type PolicyLossInput } from "./policy-loss";
import { LOSS_AGGREGATIONS } from "./loss-aggregation";
import { loopPolicyLoss, type LoopInput } from "./testing/loop-policy-loss";
import { mulberry32 } from "../../lib/seeded-random";

before(async () => {
  await tf.setBackend("cpu");
});

function randomBatch(seed: number, rows: number, tokens: number): LoopInput {
  const r = mulberry32(seed);
  const matrix = (f: () => number) => Array.from({ length: rows }, () => Array.from({ length: tokens }, f));
  const oldLogProbs = matrix(() => -0.1 - 3 * r());
  const logProbs = oldLogProbs.map((row) => row.map((x) => x + (r() - 0.5) * 1.6));
  const advantages = Array.from({ length: rows }, () => {
    const a = (r() - 0.5) * 3;
    return Array.from({ length: tokens }, () => a);
  });
  // Response lengths vary; one row is left empty to exercise the clamped denominators.
  const mask = Array.from({ length: rows }, (_, b) => {
    const len = b === rows - 1 ? 0 : 1 + Math.floor(r() * tokens);
    return Array.from({ length: tokens }, (_, t) => (t < len ? 1 : 0));
  });
  return {
    logProbs,
    oldLogProbs,
    advantages,
    mask,
    refLogProbs: logProbs.map((row) => row.map((x) => x + (r() - 0.5))),
    entropy: matrix(() => 2 * r()),
  };
}

function toTensors(input: LoopInput): PolicyLossInput {
  return {
    logProbs: tf.tensor2d(input.logProbs),
    oldLogProbs: tf.tensor2d(input.oldLogProbs),
    advantages: tf.tensor2d(input.advantages),
    mask: tf.tensor2d(input.mask),
    refLogProbs: input.refLogProbs && tf.tensor2d(input.refLogProbs),
    entropy: input.entropy && tf.tensor2d(input.entropy),
  };
}

const disposeInput = (input: PolicyLossInput) => tf.dispose(Object.values(input).filter((t) => t !== undefined));

const DAPO: PolicyLossConfig = {
  clipLow: 0.2,
  clipHigh: 0.28,
  dualClip: 3,
  lossAgg: "token-mean",
  klCoef: 0.05,
  klEstimator: "k3",
  entropyCoef: 0.01,
};
const CONFIGS: Record<string, PolicyLossConfig> = {
  "dapo clip-higher + dual clip + k3 + entropy": DAPO,
  "symmetric PPO, k1, no entropy": { ...DAPO, clipHigh: 0.2, klEstimator: "k1", entropyCoef: 0 },
  "TRL style: no dual clip, delta, unclamped k3": {
    ...DAPO,
    dualClip: null,
    delta: 2,
    logRatioClamp: null,
    klEstimator: "k3-unclamped",
  },
  "k2 with a max-length normaliser": { ...DAPO, klEstimator: "k2", maxTokens: 12 },
};

describe("computePolicyLoss", () => {
  it("equals the readable loop version for every aggregation and config", () => {
    const batch = randomBatch(7, 5, 9);
    const tensors = toTensors(batch);
    for (const [label, config] of Object.entries(CONFIGS)) {
      for (const lossAgg of Object.keys(LOSS_AGGREGATIONS)) {
        const c = { ...config, lossAgg };
        const { loss, metrics } = computePolicyLoss(tensors, c);
        const expected = loopPolicyLoss(batch, c);
        const got = loss.dataSync()[0];
        assert.ok(Math.abs(got - expected) <= 1e-5 * Math.max(1, Math.abs(expected)), `${label} / ${lossAgg}: ${got} vs ${expected}`);
        tf.dispose([loss, ...Object.values(metrics)]);
      }
    }
    disposeInput(tensors);
  });

  it("has the gradient of central finite differences w.r.t. logProbs, and none on masked tokens", () => {
    // Float32: step 1e-2 keeps rounding error (~1e-7 / h) and truncation error (~h^2) both near 1e-5. The inputs
    // are picked away from clip boundaries (|log ratio - log(1 +- eps)| > h) where the loss has kinks.
    const batch: LoopInput = {
      oldLogProbs: [
        [-1.0, -1.2, -0.5, -2.0],
        [-0.7, -1.5, -0.9, -1.0],
      ],
      logProbs: [
        [-0.9, -0.8, -0.8, -2.0],
        [0.8, -1.9, -0.85, -0.6],
      ],
      refLogProbs: [
        [-1.1, -0.9, -0.6, -2.0],
        [-0.5, -1.8, -1.0, -0.4],
      ],
      advantages: [
        [0.8, 0.8, 0.8, 0.8],
        [-1.2, -1.2, -1.2, -1.2],
      ],
      mask: [
        [1, 1, 1, 1],
        [1, 1, 1, 0],
      ],
      entropy: [
        [0.9, 1.1, 0.4, 0.2],
        [1.3, 0.7, 0.5, 0.3],
      ],
    };
    const h = 1e-2;
    for (const lossAgg of ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum"]) {
      for (const klEstimator of ["k1", "k2", "k3"]) {
        const config = { ...DAPO, lossAgg, klEstimator, klCoef: 0.1 };
        const t = toTensors(batch);
        const lossOf = (lp: tf.Tensor) => {
          const { loss, metrics } = computePolicyLoss({ ...t, logProbs: lp as tf.Tensor2D }, config);
          tf.dispose(Object.values(metrics));
          return loss;
        };
        const grad = tf.grad(lossOf)(t.logProbs);
        const analytic = grad.arraySync() as number[][];
        tf.dispose(grad);
        batch.logProbs.forEach((row, b) =>
          row.forEach((_, i) => {
            const shifted = (d: number) => {
              const lp = batch.logProbs.map((r, bb) => r.map((x, ii) => (bb === b && ii === i ? x + d : x)));
              return tf.tidy(() => lossOf(tf.tensor2d(lp)).dataSync()[0]);
            };
            const numeric = (shifted(h) - shifted(-h)) / (2 * h);
            const label = `${lossAgg}/${klEstimator} d loss / d lp[${b}][${i}]`;
            assert.ok(Math.abs(analytic[b][i] - numeric) <= 2e-4, `${label}: analytic ${analytic[b][i]} vs numeric ${numeric}`);
            if (batch.mask[b][i] === 0) assert.equal(analytic[b][i], 0, `${label} must be 0 on a masked token`);
          }),
        );
        disposeInput(t);
      }
    }
  });

  it("gives no gradient to tokens clipped by the trust region (so they stop moving)", () => {
    const t = toTensors({
      oldLogProbs: [[-1, -1, -1]],
      logProbs: [[-0.5, -1.5, -0.95]], // ratio 1.65 (A>0, clipped), 0.61 (A<0, clipped), 1.05 (inside)
      advantages: [[1, -1, 1]].map((r) => r),
      mask: [[1, 1, 1]],
    });
    const grad = tf.grad((lp: tf.Tensor) => {
      const { loss, metrics } = computePolicyLoss({ ...t, logProbs: lp as tf.Tensor2D }, { ...DAPO, klCoef: 0, entropyCoef: 0 });
      tf.dispose(Object.values(metrics));
      return loss;
    })(t.logProbs);
    const [g] = grad.arraySync() as number[][];
    assert.equal(g[0], 0);
    assert.equal(g[1], 0);
    assert.ok(g[2] < 0, "an unclipped token with A > 0 is pushed up (negative loss gradient)");
    tf.dispose(grad);
    disposeInput(t);
  });

  it("reports metrics as numbers after a variableGrads step without leaking tensors", async () => {
    const batch = randomBatch(3, 4, 6);
    const t = toTensors(batch);
    const logits = tf.variable(tf.tensor2d(batch.logProbs));
    const optimizer = tf.train.sgd(0.1);
    const before = tf.memory().numTensors;
    for (let step = 0; step < 3; step++) {
      let kept: Record<string, tf.Scalar> = {};
      const { value, grads } = tf.variableGrads(() => {
        const { loss, metrics } = computePolicyLoss({ ...t, logProbs: logits as tf.Variable as tf.Tensor2D }, DAPO);
        kept = metrics;
        Object.values(metrics).forEach((m) => tf.keep(m));
        return loss;
      });
      optimizer.applyGradients(grads);
      const numbers = await readMetrics(kept);
      for (const name of ["pg_loss", "loss", "kl", "entropy", "clip_frac_low", "clip_frac_high", "ratio_mean", "ppo_kl"]) {
        assert.equal(typeof numbers[name], "number", name);
        assert.ok(Number.isFinite(numbers[name]), `${name} = ${numbers[name]}`);
      }
      assert.ok(Math.abs(numbers.loss - value.dataSync()[0]) < 1e-6, "metrics.loss equals the optimised loss");
      tf.dispose([value, ...Object.values(grads)]);
    }
    assert.equal(tf.memory().numTensors, before, "tensor count is flat across training steps");
    tf.dispose([logits, ...Object.values(t).filter((x) => x !== undefined)]);
    optimizer.dispose();
  });

  it("leaves only the loss and metrics alive after a direct call", () => {
    const t = toTensors(randomBatch(11, 3, 5));
    const before = tf.memory().numTensors;
    const { loss, metrics } = computePolicyLoss(t, DAPO);
    assert.equal(tf.memory().numTensors, before + 1 + Object.keys(metrics).length);
    tf.dispose([loss, ...Object.values(metrics)]);
    assert.equal(tf.memory().numTensors, before);
    disposeInput(t);
  });

  it("names the valid choices when the aggregation or KL estimator is unknown", () => {
    const t = toTensors(randomBatch(5, 2, 3));
    assert.throws(
      () => computePolicyLoss(t, { ...DAPO, lossAgg: "token-sum" }),
      /Unknown loss aggregation "token-sum". Valid names: token-mean, seq-mean-token-sum, seq-mean-token-mean, seq-mean-token-sum-norm/,
    );
    assert.throws(() => computePolicyLoss(t, { ...DAPO, klEstimator: "k4" }), /Unknown KL estimator "k4". Valid names: .*k3/);
    disposeInput(t);
  });

  it("explains missing inputs and bad settings instead of producing NaN", () => {
    const t = toTensors(randomBatch(5, 2, 3));
    const { refLogProbs, entropy, ...bare } = t;
    assert.throws(() => computePolicyLoss(bare, DAPO), /klCoef != 0 needs refLogProbs/);
    assert.throws(() => computePolicyLoss(bare, { ...DAPO, klCoef: 0 }), /entropyCoef != 0 needs the per-token entropy/);
    assert.throws(() => computePolicyLoss(t, { ...DAPO, dualClip: 0.5 }), /dualClip must be > 1/);
    const { loss, metrics } = computePolicyLoss(bare, { ...DAPO, klCoef: 0, entropyCoef: 0 });
    assert.ok(Number.isFinite(loss.dataSync()[0]));
    assert.ok(!("kl" in metrics) && !("entropy" in metrics));
    tf.dispose([loss, ...Object.values(metrics), refLogProbs, entropy]);
    disposeInput(bare);
  });
});

describe("computeTokenStats", () => {
  it("marks exactly the tokens the loss counts as clipped / dual-clipped, with the loss's ratio and KL", () => {
    const batch = randomBatch(11, 6, 12);
    const tensors = toTensors(batch);
    for (const [label, config] of Object.entries(CONFIGS)) {
      const { loss, metrics } = computePolicyLoss(tensors, config);
      const expected = Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, v.dataSync()[0]]));
      tf.dispose([loss, ...Object.values(metrics)]);
      const stats = computeTokenStats(tensors, config);
      const [ratio, code, kl] = [stats.ratio.arraySync(), stats.clipCode.arraySync(), stats.kl!.arraySync()];
      tf.dispose([stats.ratio, stats.clipCode, stats.kl!]);
      const masked: [number, number, number, number][] = [];
      batch.mask.forEach((row, b) => row.forEach((m, t) => m && masked.push([ratio[b][t], code[b][t], kl[b][t], batch.logProbs[b][t]])));
      const frac = (c: number) => masked.filter((x) => x[1] === c).length / masked.length;
      const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-5, `${label}: ${what} ${a} vs ${b}`);
      near(frac(1), expected.pg_clipfrac, "clipped fraction");
      near(frac(2), expected.dual_clip_frac, "dual-clipped fraction");
      near(masked.reduce((s, x) => s + x[0], 0) / masked.length, expected.ratio_mean, "mean ratio");
      if (config.lossAgg === "token-mean") near(masked.reduce((s, x) => s + x[2], 0) / masked.length, expected.kl, "mean KL");
      assert.ok(frac(1) > 0 && frac(1) < 1, `${label}: the batch exercises both branches`);
    }
    disposeInput(tensors);
  });
});
