import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ADVANTAGE_ESTIMATORS, computeGroupAdvantages, summarizeAdvantages } from "./advantages";
import { UnknownVariantError } from "./registry";

const ESTIMATORS = Object.keys(ADVANTAGE_ESTIMATORS);
const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) <= 1e-9, `${what}: ${a} vs ${b}`);

/** Readable loop version: one group at a time, straight from the formulas in advantages.ts. */
function loopAdvantage(rewards: (number | null)[], estimator: string): number[] {
  const scored = rewards.filter((r): r is number => r !== null);
  const n = scored.length;
  const m = scored.reduce((a, b) => a + b, 0) / n;
  const sq = scored.reduce((a, r) => a + (r - m) ** 2, 0);
  return rewards.map((r) => {
    if (r === null) return 0;
    if (n === 1) return estimator === "grpo" ? r / (1 + 1e-6) : estimator === "drgrpo" ? r : 0;
    if (estimator === "drgrpo") return r - m;
    if (estimator === "art") return (r - m) / (Math.sqrt(sq / n) + 1e-6);
    return (r - m) / (Math.sqrt(sq / (n - 1)) + (estimator === "trl" ? 1e-4 : 1e-6));
  });
}

describe("computeGroupAdvantages", () => {
  it("matches the loop version on groups of several sizes for every estimator", () => {
    const groups: (number | null)[][] = [[0.3, 0.9, 0.1, 0.4], [1, null, 0, 0.25, 0.5], [0.6], [2, 2, -1]];
    const rewards = groups.flat();
    const ids = groups.flatMap((g, gi) => g.map(() => `prompt-${gi}`));
    for (const estimator of ESTIMATORS) {
      const got = computeGroupAdvantages(rewards, ids, { estimator }).advantages;
      const expected = groups.flatMap((g) => loopAdvantage(g, estimator));
      got.forEach((a, i) => close(a, expected[i], `${estimator}[${i}]`));
    }
  });

  it("leaves unscorable samples out: advantage 0 and the others as if the sample did not exist", () => {
    for (const estimator of ESTIMATORS) {
      const withNull = computeGroupAdvantages([1, null, 0, 0.5], [0, 0, 0, 0], { estimator });
      const without = computeGroupAdvantages([1, 0, 0.5], [0, 0, 0], { estimator });
      assert.equal(withNull.advantages[1], 0, estimator);
      assert.deepEqual([withNull.advantages[0], withNull.advantages[2], withNull.advantages[3]], without.advantages);
      assert.deepEqual(withNull.scored, [true, false, true, true]);
      assert.equal(withNull.groups[0].size, 4);
      assert.equal(withNull.groups[0].scoredCount, 3);
    }
  });

  it("treats NaN like null and a fully unscorable group as having no statistics", () => {
    const r = computeGroupAdvantages([null, Number.NaN, 1, 0], ["a", "a", "b", "b"], { estimator: "grpo" });
    assert.deepEqual(r.advantages.slice(0, 2), [0, 0]);
    assert.equal(r.groups[0].mean, null);
    assert.equal(r.groups[0].std, null);
    assert.ok(r.advantages.every(Number.isFinite));
  });

  it("gives all-equal groups zero advantage and flags them", () => {
    for (const estimator of ESTIMATORS) {
      const r = computeGroupAdvantages([0.7, 0.7, 0.7, 1, 0], [1, 1, 1, 2, 2], { estimator });
      assert.deepEqual(r.advantages.slice(0, 3), [0, 0, 0], estimator);
      assert.deepEqual(
        r.groups.map((g) => g.zeroVariance),
        [true, false],
      );
      assert.equal(summarizeAdvantages(r).zeroVarianceGroupFraction, 0.5);
    }
  });

  it("follows each upstream on singleton groups (verl keeps the raw reward, TRL/ART give 0)", () => {
    const single = (estimator: string) => computeGroupAdvantages([0.7], ["only"], { estimator }).advantages[0];
    close(single("grpo"), 0.7 / (1 + 1e-6), "grpo");
    close(single("drgrpo"), 0.7, "drgrpo");
    assert.equal(single("trl"), 0);
    assert.equal(single("art"), 0);
  });

  it("TRL batch scaling divides by the batch std, not the group std", () => {
    const r = computeGroupAdvantages([1, 0, 0.5, 0.5], [0, 0, 1, 1], { estimator: "trl", scaleRewards: "batch" });
    assert.equal(r.groups[0].std, r.groups[1].std, "both groups use the same (batch) std");
    assert.equal(r.advantages[2], 0);
  });

  it("rejects unknown names listing valid ones, and misplaced options saying what to use", () => {
    assert.throws(
      () => computeGroupAdvantages([1], [0], { estimator: "ppo" }),
      (e: unknown) => e instanceof UnknownVariantError && /Valid names: grpo, trl, drgrpo, art/.test(e.message),
    );
    assert.throws(() => computeGroupAdvantages([1], [0], { estimator: "grpo", scaleRewards: "none" }), /use estimator "drgrpo"/);
    assert.throws(() => computeGroupAdvantages([1, 2], [0], { estimator: "grpo" }), /same length/);
  });

  it("summarises advantages over scored samples only", () => {
    const s = summarizeAdvantages(computeGroupAdvantages([1, 0, null, null], [0, 0, 0, 0], { estimator: "drgrpo" }));
    assert.equal(s.advantageMean, 0);
    assert.equal(s.advantageAbsMean, 0.5);
    assert.equal(s.unscorableFraction, 0.5);
  });
});
