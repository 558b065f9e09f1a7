import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { DecoderLM } from "../policy/model";
import { PRESETS } from "../policy/config";
import { AdamW } from "../policy/optimizer";
import { Rng } from "../policy/rng";
import { GrpoUpdater, type ScoredTrajectory } from "./grpo-update";
import { GuardedStepper, NonFiniteUpdateError } from "./step";
import { maskedNll, runSft, runSftSteps } from "./sft";

await tf.setBackend("cpu");

const LOSS = { clipLow: 0.2, clipHigh: 0.28, dualClip: 3, lossAgg: "token-mean", klCoef: 0.05, klEstimator: "k3", entropyCoef: 0.01 };

function traj(tokens: number[], adv: number): ScoredTrajectory {
  const mask = tokens.map((_, i) => (i >= 3 ? 1 : 0));
  return { tokens, lossMask: mask, advantages: mask.map((m) => m * adv) };
}

test("a GRPO update changes the weights, keeps the tensor count flat and raises good-advantage log-probs", async () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 1 });
  const reference = model.frozenCopy();
  const opt = new AdamW(model.trainableVariables(), { lr: 1e-2, maxGradNorm: 1 });
  const updater = new GrpoUpdater(model, opt, { loss: LOSS, miniBatchSize: 2, microBatchSize: 1, ppoEpochs: 2 }, reference);
  const good = [1, 2, 3, 40, 41, 42, 43];
  const bad = [1, 2, 3, 90, 91, 92];
  const lpBefore = (await updater.prepare([traj(good, 1)]))[0].oldLogProbs as number[];
  const w0 = model.p("model.layers.0.mlp.up_proj.weight").dataSync().slice();
  const rng = new Rng(0);
  await updater.update([[traj(good, 1), traj(bad, -1)]], rng); // warm-up allocations (optimizer moments etc.)
  const before = tf.memory().numTensors;
  const report = await updater.update([[traj(good, 1), traj(bad, -1)]], rng);
  assert.equal(tf.memory().numTensors, before, "tensors leaked across update steps");
  assert.equal(report.steps.length, 2);
  assert.equal(report.skippedSteps, 0);
  for (const k of ["loss", "grad_norm", "kl", "entropy", "pg_clipfrac"]) assert.ok(Number.isFinite(report.metrics[k]), k);
  const w1 = model.p("model.layers.0.mlp.up_proj.weight").dataSync();
  assert.ok(
    w1.some((v, i) => v !== w0[i]),
    "weights did not change",
  );
  const lpAfter = (await updater.prepare([traj(good, 1)]))[0].oldLogProbs as number[];
  const sum = (xs: number[]) => xs.slice(3).reduce((a, b) => a + b, 0);
  assert.ok(sum(lpAfter) > sum(lpBefore), "positive-advantage tokens did not become more likely");
  model.dispose();
  reference.dispose();
  opt.dispose();
});

test("NaN advantages skip the step without touching weights, and repeated NaN fails with a clear error", async () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 2 });
  const opt = new AdamW(model.trainableVariables(), { lr: 1e-2 });
  const updater = new GrpoUpdater(model, opt, { loss: { ...LOSS, klCoef: 0 }, miniBatchSize: 1, ppoEpochs: 1, maxConsecutiveBadSteps: 2 });
  const w0 = model.p("model.norm.weight").dataSync().slice();
  const r = await updater.update([[traj([1, 2, 3, 4, 5], NaN)]], new Rng(0));
  assert.equal(r.skippedSteps, 1);
  assert.equal(r.steps[0].skippedReason, "loss");
  assert.deepEqual(Array.from(model.p("model.norm.weight").dataSync()), Array.from(w0));
  assert.equal(opt.step, 0);
  await assert.rejects(updater.update([[traj([1, 2, 3, 4, 5], NaN)]], new Rng(0)), NonFiniteUpdateError);
  model.dispose();
  opt.dispose();
});

test("SFT warm-start lowers the masked NLL of the demonstrations", async () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 3 });
  const opt = new AdamW(model.trainableVariables(), { lr: 1e-2 });
  const demos = [
    { tokens: [1, 2, 3, 60, 61, 62], lossMask: [0, 0, 0, 1, 1, 1] },
    { tokens: [4, 5, 6, 70, 71], lossMask: [0, 0, 0, 1, 1] },
  ];
  const nll = () => tf.tidy(() => maskedNll(model, demos).dataSync()[0]);
  const before = nll();
  const steps = await runSft(model, opt, demos, { epochs: 10, batchSize: 2 }, new Rng(0));
  assert.equal(steps.length, 10);
  assert.ok(nll() < before * 0.7, `NLL ${before} -> ${nll()}`);
  model.dispose();
  opt.dispose();
});

test("runSftSteps takes exactly the asked optimizer steps, cycling through fewer demonstrations than steps x batch", async () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 4 });
  const opt = new AdamW(model.trainableVariables(), { lr: 1e-2 });
  const demos = [
    { tokens: [1, 2, 3, 60, 61, 62], lossMask: [0, 0, 0, 1, 1, 1] },
    { tokens: [4, 5, 6, 70, 71], lossMask: [0, 0, 0, 1, 1] },
    { tokens: [7, 8, 80, 81], lossMask: [0, 0, 1, 1] },
  ];
  const nll = () => tf.tidy(() => maskedNll(model, demos).dataSync()[0]);
  const before = nll();
  const steps = await runSftSteps(model, opt, demos, { steps: 7, batchSize: 2 }, new Rng(0));
  assert.equal(steps.length, 7);
  assert.equal(opt.step, 7);
  assert.ok(nll() < before * 0.8, `NLL ${before} -> ${nll()}`);
  let asked = 0;
  const stopped = await runSftSteps(model, opt, demos, { steps: 5, batchSize: 2, shouldStop: () => ++asked > 2 }, new Rng(0));
  assert.equal(stopped.length, 2, "stops between steps once asked to");
  model.dispose();
  opt.dispose();
});

test("a micro-batch or an optimizer that throws mid-step leaks no tensors (a long-lived worker keeps its memory)", async () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 5 });
  const opt = new AdamW(model.trainableVariables(), { lr: 1e-2 });
  const stepper = new GuardedStepper(model, opt);
  const loss = () => ({ loss: tf.mean(model.p("model.norm.weight")) as tf.Scalar, metrics: {} });
  await stepper.step([{ weight: 1, loss }]); // warm-up: optimizer moments
  const before = tf.memory().numTensors;
  const failing = () => {
    throw new Error("micro-batch 2 failed");
  };
  await assert.rejects(
    stepper.step([
      { weight: 0.5, loss },
      { weight: 0.5, loss: failing },
    ]),
    /micro-batch 2 failed/,
  );
  assert.equal(tf.memory().numTensors, before, "the first micro-batch's gradients were freed");
  const apply = opt.apply.bind(opt);
  opt.apply = () => {
    throw new Error("optimizer failed");
  };
  await assert.rejects(stepper.step([{ weight: 1, loss }]), /optimizer failed/);
  assert.equal(tf.memory().numTensors, before, "the accumulated gradients were freed");
  opt.apply = apply;
  model.dispose();
  opt.dispose();
});

test("with recordTokenStats the update reports, per trajectory, each token's ratio, clip branch and KL at its last pass", async () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 3 });
  const reference = model.frozenCopy();
  const opt = new AdamW(model.trainableVariables(), { lr: 5e-2, maxGradNorm: 1 });
  const config = { loss: LOSS, miniBatchSize: 1, ppoEpochs: 3, recordTokenStats: true };
  const updater = new GrpoUpdater(model, opt, config, reference);
  const good = traj([1, 2, 3, 40, 41, 42, 43], 1);
  const bad = traj([1, 2, 3, 90, 91, 92], -1);
  const before = tf.memory().numTensors;
  const report = await updater.update([[good, bad]], new Rng(0));
  assert.equal(tf.memory().numTensors, before, "the read-back leaked tensors");
  for (const t of [good, bad]) {
    const s = report.tokenStats!.get(t)!;
    assert.ok(s, "every trained trajectory has stats");
    assert.equal(s.ratio.length, t.tokens.length);
    assert.equal(s.kl?.length, t.tokens.length, "KL per token when the loss has a reference");
    const trained = s.ratio.filter((_, i) => t.lossMask[i] > 0);
    // By the last of 3 epochs of one-trajectory steps the weights moved: the ratios are no longer all 1.
    assert.ok(
      trained.some((r) => Math.abs(r - 1) > 1e-4),
      `ratios at the last pass: ${trained.join(", ")}`,
    );
    assert.ok(s.clipCode.every((c) => c === 0 || c === 1 || c === 2));
  }
  const lastGood = report.tokenStats!.get(good)!.ratio.filter((_, i) => good.lossMask[i] > 0);
  const mean = lastGood.reduce((a, b) => a + b, 0) / lastGood.length;
  assert.ok(mean > 1, `reinforced tokens grew more likely between sampling and the last pass (mean ratio ${mean})`);
  const plain = new GrpoUpdater(model, opt, { ...config, recordTokenStats: false }, reference);
  assert.equal((await plain.update([[good]], new Rng(1))).tokenStats, undefined);
  model.dispose();
  reference.dispose();
  opt.dispose();
});
