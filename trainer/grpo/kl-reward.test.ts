import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { computeKlValue } from "./kl";
import { klPenalisedScores } from "./kl-reward";

describe("KL-in-reward scores (verl use_kl_in_reward)", () => {
  const mask = [
    [0, 0, 1, 1, 0, 1],
    [0, 0, 1, 1, 0, 1],
    [0, 0, 1, 1, 0, 1],
  ];
  const policy = [
    [0, -1, -0.2, -0.7, -3, -0.1],
    [0, -1, -0.2, -0.7, -3, -0.1],
    [0, -1, -0.2, -0.7, -3, -0.1],
  ];
  // Sample 0: reference equals the policy. Sample 1: the reference disagrees on two policy tokens and one context
  // token. Sample 2: diverges but could not be scored.
  const reference = [
    [0, -1, -0.2, -0.7, -3, -0.1],
    [0, -9, -1.5, -0.7, -9, -2.0],
    [0, -1, -2, -2, -3, -2],
  ];

  for (const estimator of ["k1", "k2", "k3"]) {
    it(`${estimator}: no penalty when the policy equals the reference, reward - coef * sum kl when it diverges, null stays null`, () => {
      const coef = 0.05;
      const { scores, klSums } = klPenalisedScores([0.8, 0.8, null], policy, reference, mask, { coef, estimator });
      assert.equal(scores[0], 0.8, "identical policy and reference: score = reward");
      assert.equal(klSums[0], 0);
      // Only the masked (policy) tokens count: positions 2, 3 and 5; the diverging context token (4) does not.
      const expectedKl = [2, 3, 5].reduce((s, t) => s + computeKlValue(policy[1][t], reference[1][t], estimator), 0);
      assert.ok(Math.abs(expectedKl) > 0.1, "the fixture really diverges");
      assert.ok(Math.abs(klSums[1] - expectedKl) < 1e-9, `${klSums[1]} vs ${expectedKl}`);
      assert.ok(Math.abs((scores[1] as number) - (0.8 - coef * expectedKl)) < 1e-9, `${scores[1]}`);
      assert.equal(scores[2], null, "an unscored sample is never given a number (not 0, not -coef*kl)");
      assert.ok(klSums[2] > 0 || estimator === "k1", "its KL is still measured for the metrics");
    });
  }

  it("keeps the reward of a sample with no policy tokens and rejects misaligned rows", () => {
    const r = klPenalisedScores([0.5], [[0, -1]], [[0, -4]], [[0, 0]], { coef: 1, estimator: "k3" });
    assert.deepEqual(r.scores, [0.5]);
    assert.deepEqual(r.klSums, [0]);
    assert.equal(r.nonFinite, 0);
    assert.throws(() => klPenalisedScores([0.5, 1], [[0, -1]], [[0, -4]], [[0, 0]], { coef: 1, estimator: "k3" }), /2 rewards but 1/);
  });

  it("a non-finite KL (a -inf log-prob) leaves the reward unpenalised and is counted, not turned into NaN", () => {
    const r = klPenalisedScores(
      [0.7, 0.4],
      [
        [0, -1],
        [0, -1],
      ],
      [
        [0, -Infinity],
        [0, -1.5],
      ],
      [
        [0, 1],
        [0, 1],
      ],
      { coef: 0.1, estimator: "k1" },
    );
    assert.equal(r.scores[0], 0.7);
    assert.ok(Number.isFinite(r.scores[1] as number) && (r.scores[1] as number) < 0.4);
    assert.equal(r.nonFinite, 1);
  });
});
