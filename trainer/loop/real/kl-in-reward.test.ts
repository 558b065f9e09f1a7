import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { PRESETS } from "../../policy/config";
import { DecoderLM } from "../../policy/model";
import { createKlInRewardScorer, klInRewardMetrics } from "./kl-in-reward";

await tf.setBackend("cpu");

const sample = (tokens: number[]) => ({ tokens, lossMask: tokens.map((_, i) => (i >= 3 ? 1 : 0)) });
const groups = () => [
  { samples: [sample([1, 2, 3, 40, 41, 42]), sample([1, 2, 3, 50, 51])], rewards: [1, 0] },
  { samples: [sample([4, 5, 6, 60, 61]), sample([4, 5, 6, 70])], rewards: [null, 0.5] },
];

test("scores equal rewards while the policy is the reference, and drop below them once it has moved", async () => {
  const policy = new DecoderLM(PRESETS.micro, { seed: 5 });
  const reference = policy.frozenCopy();
  const score = createKlInRewardScorer(policy, reference, { coef: 0.1, estimator: "k3" });
  const same = await score(groups());
  assert.deepEqual(same.scores, [
    [1, 0],
    [null, 0.5],
  ]);
  assert.equal(same.metrics["kl/in_reward_mean"], 0);
  assert.equal(same.metrics["reward/penalised_mean"], 0.5);

  // Move the policy away from the reference (as updates do).
  const w = policy.p("model.layers.0.mlp.down_proj.weight");
  w.assign(tf.add(w, tf.randomNormal(w.shape, 0, 0.5, "float32", 1)));
  const moved = await score(groups());
  assert.equal(moved.scores[1][0], null, "an unscored sample stays unscored");
  for (const [g, i, r] of [
    [0, 0, 1],
    [0, 1, 0],
    [1, 1, 0.5],
  ] as const) {
    assert.ok((moved.scores[g][i] as number) < r, `sample ${g}/${i}: ${moved.scores[g][i]} < ${r}`);
  }
  assert.ok(moved.metrics["kl/in_reward_mean"] > 0);
  assert.ok(moved.metrics["kl/in_reward_token_mean"] > 0 && moved.metrics["kl/in_reward_token_mean"] < moved.metrics["kl/in_reward_mean"]);
  policy.dispose();
  reference.dispose();
});

test("metrics leave out what was not measured instead of writing 0", () => {
  assert.deepEqual(klInRewardMetrics([null], [0], [0], [[0, 0]]), {});
});

test("the per-token figure is verl's mean over sequences of each sequence's mean; non-finite KL is counted", () => {
  // one sequence of 1 token with KL 4, one of 3 tokens with KL 3 in total: per-sequence means 4 and 1
  const m = klInRewardMetrics([0.5, 0.25], [4, 3], [4, 1], [[1], [1, 1, 1]], 1);
  assert.equal(m["kl/in_reward_mean"], 3.5);
  assert.equal(m["kl/in_reward_token_mean"], 2.5, "not the token-weighted 7 / 4");
  assert.equal(m["kl/in_reward_nonfinite"], 1);
});
