import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { applyKlPenaltyToRewards, computeKlValue, updateAdaptiveKlCoef } from "./kl";

describe("KL estimators on numbers", () => {
  it("are zero when policy and reference agree and k2/k3 are never negative", () => {
    for (const estimator of ["k1", "abs", "k2", "k3", "k3-unclamped", "k1+", "k3+"]) {
      assert.equal(computeKlValue(-1.3, -1.3, estimator), 0, estimator);
    }
    for (const [lp, ref] of [
      [-0.1, -3],
      [-3, -0.1],
      [-1, -1.2],
    ]) {
      assert.ok(computeKlValue(lp, ref, "k2") >= 0);
      assert.ok(computeKlValue(lp, ref, "k3") >= 0);
    }
  });
  it("names the valid estimators on a typo", () => {
    assert.throws(() => computeKlValue(0, 0, "low-var-kl"), /Valid names: k1, kl, abs, k2, mse, k3, low_var_kl/);
  });
});

describe("KL as a reward penalty", () => {
  it("subtracts coef * KL from response tokens only and reports the per-sequence mean", () => {
    const r = applyKlPenaltyToRewards(
      [
        [0, 0, 1],
        [0, 0.5, 0],
      ],
      [
        [-1, -2, -0.5],
        [-1, -1, -1],
      ],
      [
        [-1.5, -2, -0.5],
        [-1, -1, -1],
      ],
      [
        [1, 1, 0],
        [1, 1, 1],
      ],
      { coef: 0.1, estimator: "k1" },
    );
    assert.deepEqual(r.tokenRewards[0], [0 - 0.1 * 0.5, 0, 1], "the masked token keeps its score");
    assert.deepEqual(r.tokenRewards[1], [0, 0.5, 0]);
    assert.deepEqual(r.klPerSequence, [0.25, 0]);
    assert.equal(r.klMean, 0.125);
  });
});

describe("adaptive KL coefficient", () => {
  it("grows when KL is above target, shrinks below, and moves at most 20% per horizon", () => {
    const opts = { targetKl: 0.1, horizon: 100 };
    assert.ok(updateAdaptiveKlCoef(0.05, 0.2, 10, opts) > 0.05);
    assert.ok(updateAdaptiveKlCoef(0.05, 0.01, 10, opts) < 0.05);
    assert.equal(updateAdaptiveKlCoef(0.05, 100, 100, opts), 0.05 * 1.2);
    assert.equal(updateAdaptiveKlCoef(0.05, 0.1, 100, opts), 0.05);
  });
});
