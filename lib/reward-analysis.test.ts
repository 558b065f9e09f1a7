import { test } from "node:test";
import assert from "node:assert/strict";
import { analyseComponents, compareScorings, judgeReliability, pairwiseAgreement, verdictOf } from "./reward-analysis";
import { describeScorer, ScorerSchema, RescoringSelectionSchema } from "./rescoring-config";

test("comparing scorings counts agreement and names each flip, never treating unscored as 0", () => {
  const c = compareScorings([
    { trajectoryId: "a", oldReward: 1, newReward: 1 },
    { trajectoryId: "b", oldReward: 0.8, newReward: 0 },
    { trajectoryId: "c", oldReward: 0, newReward: 1 },
    { trajectoryId: "d", oldReward: 0, newReward: 0 },
    { trajectoryId: "e", oldReward: 1, newReward: null },
    { trajectoryId: "f", oldReward: null, newReward: 0 },
  ]);
  assert.equal(c.compared, 4);
  assert.equal(c.agreed, 2);
  assert.equal(c.agreementRate, 0.5);
  assert.deepEqual(c.flips, [
    { trajectoryId: "b", kind: "pass_to_fail" },
    { trajectoryId: "c", kind: "fail_to_pass" },
    { trajectoryId: "e", kind: "became_unscored" },
    { trajectoryId: "f", kind: "became_scored" },
  ]);
  assert.ok(Math.abs((c.meanAbsDelta ?? 0) - (0.8 + 1) / 4) < 1e-12);
  assert.equal(verdictOf(null), null);
  assert.equal(compareScorings([]).agreementRate, null);
});

test("judge reliability: a judge that never wavers has agreement 1 and no noise floor; a noisy one does", () => {
  const steady = judgeReliability(
    [
      [1, 1, 1],
      [0, 0, 0],
    ],
    16,
  );
  assert.equal(steady.meanAgreement, 1);
  assert.equal(steady.noiseFloor, 0);
  assert.equal(steady.unstableShare, 0);
  const noisy = judgeReliability(
    [
      [1, 0, 1, 1],
      [0, 0, 0, 0],
      [null, 1, 0, null],
    ],
    4,
  );
  assert.equal(noisy.trajectories, 3);
  assert.equal(noisy.meanAgreement, (0.75 + 1 + 0.5) / 3);
  // variances 0.1875, 0, 0.25 -> mean 0.14583; / 4 per step -> sqrt = 0.1909
  assert.ok(Math.abs((noisy.noiseFloor ?? 0) - Math.sqrt((0.1875 + 0.25) / 3 / 4)) < 1e-12);
  assert.equal(noisy.unstableShare, 2 / 3);
  assert.equal(judgeReliability([[1], [null, 1]], 4).trajectories, 0, "single judgements say nothing about noise");
});

test("pairwise agreement between two judges only counts trajectories both scored", () => {
  const a = new Map<string, number | null>([
    ["x", 1],
    ["y", 0],
    ["z", null],
  ]);
  const b = new Map<string, number | null>([
    ["x", 1],
    ["y", 1],
    ["z", 1],
  ]);
  assert.deepEqual(pairwiseAgreement(a, b), { compared: 2, agreementRate: 0.5 });
});

test("component analysis: curves per step, correlations with the reward that stay in [−1, 1], disagreements", () => {
  const rows = [
    { id: "t1", step: 0, reward: 1.5, components: { goal: 1, verified: 0.5 } },
    { id: "t2", step: 0, reward: 0, components: { goal: 0, verified: 0 } },
    { id: "t3", step: 1, reward: 2, components: { goal: 1, verified: 1, judge_agreement: 1 } },
    { id: "t4", step: 1, reward: 1, components: { goal: 1, verified: 0 } },
  ];
  const a = analyseComponents(rows);
  assert.deepEqual(a.components, ["goal", "verified"], "judge agreement is not a reward component");
  assert.deepEqual(
    a.steps.map((s) => s.means.goal),
    [0.5, 1],
  );
  assert.equal(a.steps[1].rewardMean, 1.5);
  for (const c of a.components) assert.ok(Math.abs(a.correlations[c]!) <= 1, `${c}: ${a.correlations[c]}`);
  assert.ok(a.correlations.goal! > 0.5 && a.correlations.verified! > 0.5, "both components move with the reward");
  // A counter on a different scale (tool errors that fall as the reward rises) reads as a negative correlation, not −2000%.
  const counter = analyseComponents(
    [0, 1, 2, 3].map((i) => ({ id: `c${i}`, step: 0, reward: i / 3, components: { goal: i / 3, tool_errors: 30 - 10 * i } })),
  );
  assert.ok(Math.abs(counter.correlations.tool_errors! + 1) < 1e-9, String(counter.correlations.tool_errors));
  assert.equal(
    analyseComponents([
      { id: "k", step: 0, reward: 1, components: { x: 1 } },
      { id: "l", step: 0, reward: 0, components: { x: 1 } },
    ]).correlations.x,
    null,
    "a constant component has no correlation",
  );
  assert.deepEqual(
    a.disagreements.map((d) => d.trajectoryId),
    ["t4"],
  );
  assert.deepEqual(a.disagreements[0].low, ["verified"]);
});

test("the scorer schema fills offline defaults and rejects a pasted key or an empty weight table", () => {
  const s = ScorerSchema.parse({ kind: "judge" });
  assert.equal(s.kind === "judge" && s.offline.threshold, 1);
  assert.match(describeScorer(s), /offline judge \(threshold 1\)/);
  assert.equal(
    ScorerSchema.safeParse({ kind: "judge", endpoint: { baseUrl: "https://x.test/v1", model: "m", apiKeyEnv: "sk-abc123" } }).success,
    false,
  );
  assert.equal(ScorerSchema.safeParse({ kind: "weights", weights: {} }).success, false);
  assert.equal(RescoringSelectionSchema.safeParse({ stepMin: 5, stepMax: 2 }).success, false);
});

test("component analysis: counts are told apart from 0-1 components, and the window of steps it covers is stated", () => {
  const rows = [5, 6, 7].flatMap((step) => [
    { id: `a${step}`, step, reward: 0.5, components: { solved: 1, turns: 3, tool_errors: 0 } },
    { id: `b${step}`, step, reward: 0, components: { solved: 0, turns: 4, tool_errors: 0 } },
  ]);
  const a = analyseComponents(rows);
  assert.deepEqual(a.scales, { solved: "unit", tool_errors: "unit", turns: "count" });
  assert.deepEqual(a.window, { firstStep: 5, lastStep: 7, trajectories: 6 });
  assert.deepEqual(analyseComponents([]).window, { firstStep: null, lastStep: null, trajectories: 0 });
});
