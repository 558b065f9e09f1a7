/**
 * The gradient the update follows is the gradient of the GRPO loss it reports: central finite differences of the
 * full loss (model forward → per-token log-probs at the sampling temperature → clipped surrogate with dual clip,
 * k3 KL to a reference, entropy bonus, token-mean aggregation) against TF.js's analytic gradient, on a sample of
 * weights from every kind of parameter. Float64 is not available in TF.js, so the probe uses a step and tolerance
 * sized for float32.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { DecoderLM } from "../policy/model";
import { PRESETS } from "../policy/config";
import { padBatch, padMatrix, tokenLogProbs } from "../policy/logprobs";
import { computePolicyLoss } from "../grpo/policy-loss";
import { Rng } from "../policy/rng";

await tf.setBackend("cpu");

test("finite differences of the full GRPO loss through the model match the analytic gradient", () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 7 });
  const reference = new DecoderLM(PRESETS.micro, { seed: 8 });
  const seqs = [
    [1, 5, 9, 2, 6, 5, 3, 5],
    [2, 7, 1, 8, 2, 8, 1, 8],
  ];
  const batch = padBatch(seqs);
  const { B, T } = batch;
  const mat = (rows: number[][]) => tf.tensor2d(padMatrix(rows, T), [B, T]);
  const mask = [
    [0, 0, 0, 1, 1, 1, 0, 1],
    [0, 0, 1, 1, 1, 1, 1, 1],
  ];
  const advantages = [seqs[0].map(() => 0.8), seqs[1].map(() => -1.1)];
  const temperature = 0.7;
  const logp0 = tf.tidy(() => tokenLogProbs(model, batch, false, temperature).logp.arraySync());
  // Old log-probs a little away from the current ones, so the ratio is not 1 and the clip branches matter.
  const rng = new Rng(3);
  const old = logp0.map((row) => row.map((v) => v + (rng.next() - 0.5) * 0.6));
  const ref = tf.tidy(() => tokenLogProbs(reference, batch, false, temperature).logp.arraySync());
  const config = { clipLow: 0.2, clipHigh: 0.28, dualClip: 3, lossAgg: "token-mean", klCoef: 0.05, klEstimator: "k3", entropyCoef: 0.01 };

  const loss = () =>
    tf.tidy(() => {
      const { logp, entropy } = tokenLogProbs(model, batch, true, temperature);
      const r = computePolicyLoss(
        { logProbs: logp, oldLogProbs: mat(old), advantages: mat(advantages), mask: mat(mask), refLogProbs: mat(ref), entropy },
        config,
      );
      for (const m of Object.values(r.metrics)) m.dispose();
      return r.loss;
    });
  const { grads, value } = tf.variableGrads(loss);
  value.dispose();

  const eps = 1e-3;
  let checked = 0;
  for (const [name, variable] of model.params) {
    const grad = grads[variable.name];
    assert.ok(grad, `no gradient for ${name}`);
    const g = Array.from(grad.dataSync() as Float32Array);
    const data = Float32Array.from(variable.dataSync() as Float32Array);
    // Three entries per parameter tensor: the largest-gradient one and two spread over the tensor.
    const largest = g.reduce((best, v, i) => (Math.abs(v) > Math.abs(g[best]) ? i : best), 0);
    for (const i of new Set([largest, Math.floor(data.length / 3), data.length - 1])) {
      const at = (delta: number) => {
        const copy = data.slice();
        copy[i] += delta;
        variable.assign(tf.tensor(copy, variable.shape));
        const l = loss();
        const v = l.dataSync()[0];
        l.dispose();
        return v;
      };
      const numeric = (at(eps) - at(-eps)) / (2 * eps);
      variable.assign(tf.tensor(data, variable.shape));
      const analytic = g[i];
      assert.ok(
        Math.abs(numeric - analytic) <= 2e-3 + 0.05 * Math.abs(analytic),
        `${name}[${i}]: finite difference ${numeric} vs gradient ${analytic}`,
      );
      checked++;
    }
  }
  assert.ok(checked >= 3 * model.params.size - model.params.size, `${checked} weights checked`);
  tf.dispose(Object.values(grads));
  model.dispose();
  reference.dispose();
});
