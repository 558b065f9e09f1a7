import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  computeMultiTurnCredits,
  computeMultiTurnTokenAdvantages,
  computeTurnAdvantages,
  countTokensPerTurn,
  expandTurnAdvantagesToTokens,
  turnIdsFromBoundaries,
} from "./multiturn";

const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) <= 1e-9, `${what}: ${a} vs ${b}`);

describe("multi-turn credit assignment", () => {
  it("spreads a trajectory's advantage so the mean over its policy tokens equals the normalised score", () => {
    const turnAdv = computeTurnAdvantages([0.64, 0.8, 1], 0.5, [2, 3, 1]);
    const row = expandTurnAdvantagesToTokens(turnAdv, [0, 0, 1, 1, 1, 2, -1]);
    const nonZero = row.filter((x) => x !== 0);
    close(nonZero.reduce((a, b) => a + b, 0) / nonZero.length, 0.5, "mean");
    close(turnAdv[0] / turnAdv[2], 0.64, "turn profile follows the credits");
    assert.equal(row[6], 0, "tokens outside policy turns get nothing");
  });

  it("gives every turn the same advantage under Equalized credits regardless of turn lengths", () => {
    assert.deepEqual(computeTurnAdvantages([1, 1, 1], -0.8, [5, 1, 9]), [-0.8, -0.8, -0.8]);
  });

  it("per-turn advantages expanded over tokens equal the token-row computation", () => {
    const ids = turnIdsFromBoundaries([1, 0, 0, 1, 0, 1, 0, 0]);
    assert.deepEqual(ids, [0, 0, 0, 1, 1, 2, 2, 2]);
    const mask = [1, 1, 0, 1, 1, 1, 0, 0];
    const credit = { score: 1, normalizedScore: 1.2, turnCredits: [0.5, 0.9, 1] };
    const viaTurns = expandTurnAdvantagesToTokens(
      computeTurnAdvantages(credit.turnCredits, credit.normalizedScore, countTokensPerTurn(ids, mask, 3)),
      ids,
      mask,
    );
    assert.deepEqual(viaTurns, computeMultiTurnTokenAdvantages(credit, ids, mask));
    assert.equal(viaTurns[2], 0, "masked (observation) tokens inside a turn get 0");
  });

  it("zeroes a trajectory whose credits sum to zero (R2G with no reward), as upstream does", () => {
    assert.deepEqual(computeTurnAdvantages([0, 0], -1.4, [3, 2]), [0, 0]);
  });

  it("excludes unscorable trajectories from the group and gives them no advantage", () => {
    const opts = { turnCredit: "R2G", trajectoryScore: "R2G", gamma: 0.8 };
    const withNull = computeMultiTurnCredits([[0, 1], null, [1, 0]], [0, 0, 0], opts);
    const without = computeMultiTurnCredits(
      [
        [0, 1],
        [1, 0],
      ],
      [0, 0],
      opts,
    );
    assert.equal(withNull.trajectories[1].normalizedScore, 0);
    assert.deepEqual(withNull.trajectories[1].turnCredits, []);
    assert.equal(withNull.trajectories[0].normalizedScore, without.trajectories[0].normalizedScore);
    assert.equal(withNull.groups[0].scoredCount, 2);
  });

  it("rejects unknown method names listing the valid ones", () => {
    assert.throws(
      () => computeMultiTurnCredits([[1]], [0], { turnCredit: "Discounted", trajectoryScore: "Sum" }),
      /Unknown turn credit method "Discounted". Valid names: Equalized, R2G, EM/,
    );
    assert.throws(
      () => computeMultiTurnCredits([[1]], [0], { turnCredit: "EM", trajectoryScore: "Max" }),
      /Unknown trajectory score method "Max". Valid names: Sum, R2G/,
    );
  });
});
