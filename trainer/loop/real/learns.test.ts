/**
 * Proof that runs learn, through the production loop and pieces (the code a worker runs): the guess-number launch
 * preset with its SFT warm-start and GRPO, against a control with the same seed, tasks, warm-start and sampling but
 * no update. Runs on wasm (the production CPU backend); the seed is fixed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { findEnvironment } from "../../../lib/environments";
import { selectBackend } from "../../backend/select";
import { episodeRewards, trainLocally } from "./local-run";

test(
  "GRPO on the guess-number preset beats the no-update control in the last steps, from the same start",
  { timeout: 300_000 },
  async () => {
    await selectBackend({ ROLLOUT_LAB_BACKEND: "wasm" });
    const preset = findEnvironment("guess-number")!.preset;
    const config = { ...preset, environment: "guess-number", seed: 1 };
    const steps = preset.grpo!.steps!;
    const before = tf.memory().numTensors;
    const grpo = await trainLocally(config);
    const control = await trainLocally(config, { update: false });
    assert.equal(tf.memory().numTensors, before, "training leaked tensors");
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const w = Math.floor(steps / 5);
    assert.deepEqual(
      episodeRewards(grpo.sink, 0, 1),
      episodeRewards(control.sink, 0, 1),
      "step 0 precedes any update: both arms play it identically",
    );
    const [first, last, controlLast] = [
      mean(episodeRewards(grpo.sink, 0, w)),
      mean(episodeRewards(grpo.sink, steps - w, steps)),
      mean(episodeRewards(control.sink, steps - w, steps)),
    ];
    assert.ok(last > first + 0.08, `reward did not rise: first ${w} steps ${first.toFixed(3)}, last ${w} ${last.toFixed(3)}`);
    assert.ok(last > controlLast + 0.08, `no better than without updates: ${last.toFixed(3)} vs control ${controlLast.toFixed(3)}`);
    const sft = grpo.sink.steps.get(0)!.metrics as Record<string, number>;
    assert.ok(sft["sft/loss_last"] < sft["sft/loss_first"] / 2, "the SFT warm-start at least halves its loss");
    await tf.setBackend("cpu");
  },
);
