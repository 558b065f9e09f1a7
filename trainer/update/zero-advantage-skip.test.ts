/**
 * Rows whose advantages are all 0 are left out of the update's forward/backward passes when the loss is only the
 * policy gradient (their loss is exactly 0); the aggregation keeps the full micro-batch's denominators, so the
 * weights after the update are those of the full computation, for every loss aggregation.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { DecoderLM } from "../policy/model";
import { PRESETS } from "../policy/config";
import { AdamW } from "../policy/optimizer";
import { Rng } from "../policy/rng";
import { GrpoUpdater, type ScoredTrajectory } from "./grpo-update";

await tf.setBackend("cpu");

function traj(tokens: number[], adv: number): ScoredTrajectory {
  const mask = tokens.map((_, i) => (i >= 3 ? 1 : 0));
  return { tokens, lossMask: mask, advantages: mask.map((m) => m * adv) };
}

/** Rows of different lengths (so padding and token counts differ), two groups' worth with all-zero groups among them. */
const batch = (): ScoredTrajectory[][] => [
  [traj([1, 2, 3, 40, 41, 42, 43, 44], 0.9), traj([1, 2, 3, 90, 91], -0.9), traj([1, 2, 3, 7, 8, 9], 0)],
  [traj([4, 5, 6, 11, 12, 13, 14], 0), traj([4, 5, 6, 15, 16], 0), traj([4, 5, 6, 17, 18, 19, 20, 21, 22], 0)],
  [traj([7, 8, 9, 30, 31], 0), traj([7, 8, 9, 32, 33, 34, 35], 0.5)],
];

async function weightsAfter(
  lossAgg: string,
  skip: boolean,
  extra: Partial<{ klCoef: number; microBatchSize: number; miniBatchSize: number }> = {},
) {
  const model = new DecoderLM(PRESETS.micro, { seed: 5, initStd: 0.05 });
  const reference = model.frozenCopy();
  const opt = new AdamW(model.trainableVariables(), { lr: 1e-2, weightDecay: 0.01 });
  const loss = {
    clipLow: 0.2,
    clipHigh: 0.28,
    dualClip: 3,
    lossAgg,
    klCoef: extra.klCoef ?? 0,
    klEstimator: "k3",
    entropyCoef: 0,
    maxTokens: 16,
  };
  const updater = new GrpoUpdater(
    model,
    opt,
    { loss, miniBatchSize: extra.miniBatchSize ?? 8, microBatchSize: extra.microBatchSize ?? 2, ppoEpochs: 2, skipZeroAdvantageRows: skip },
    reference,
  );
  const report = await updater.update(batch(), new Rng(3));
  const w = model.trainableVariables().flatMap((v) => Array.from(v.dataSync()));
  model.dispose();
  reference.dispose();
  opt.dispose();
  return { w, report };
}

test("leaving zero-advantage rows out gives the same weights as computing them, for every aggregation", async () => {
  for (const agg of ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-mean-token-sum-norm", "trl-dr_grpo"]) {
    const full = await weightsAfter(agg, false);
    const skipped = await weightsAfter(agg, true);
    assert.equal(full.report.zeroAdvantageRowsSkipped, 0);
    assert.ok(
      skipped.report.zeroAdvantageRowsSkipped >= 8,
      `${agg}: ${skipped.report.zeroAdvantageRowsSkipped} rows skipped over 2 epochs`,
    );
    const diff = full.w.reduce((m, v, i) => Math.max(m, Math.abs(v - skipped.w[i])), 0);
    assert.ok(diff < 1e-6, `${agg}: weights differ by ${diff}`);
  }
});

test("an optimizer step whose rows are all zero still steps (momentum and weight decay), exactly as computed in full", async () => {
  const full = await weightsAfter("token-mean", false, { miniBatchSize: 3, microBatchSize: 1 });
  const skipped = await weightsAfter("token-mean", true, { miniBatchSize: 3, microBatchSize: 1 });
  assert.equal(skipped.report.steps.length, full.report.steps.length);
  const diff = full.w.reduce((m, v, i) => Math.max(m, Math.abs(v - skipped.w[i])), 0);
  assert.ok(diff < 1e-6, `weights differ by ${diff}`);
});

test("with a KL term nothing is skipped (zero-advantage rows still pull toward the reference)", async () => {
  const { report } = await weightsAfter("token-mean", true, { klCoef: 0.05 });
  assert.equal(report.zeroAdvantageRowsSkipped, 0);
});
