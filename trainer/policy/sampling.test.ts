import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { DecoderLM } from "./model";
import { PRESETS } from "./config";
import { generate } from "./sampling";
import { computeLogProbs } from "./logprobs";
import { Rng } from "./rng";

await tf.setBackend("cpu");

test("KV-cache sampling matches full recomputation, also for left-padded batched prompts", () => {
  const m = new DecoderLM(PRESETS.micro, { seed: 7, initStd: 0.2 });
  for (const prompts of [
    [
      [10, 20, 30, 40, 50],
      [60, 70],
    ],
    [[5, 6, 7]],
  ]) {
    const before = tf.memory().numTensors;
    const samples = generate(m, prompts, { maxNewTokens: 12, temperature: 1, rng: new Rng(1) });
    assert.equal(tf.memory().numTensors, before, "sampling leaked tensors");
    const full = computeLogProbs(
      m,
      prompts.map((p, i) => [...p, ...samples[i].tokens]),
    );
    samples.forEach((s, i) => {
      assert.equal(s.tokens.length, 12);
      const recomputed = full[i].slice(prompts[i].length);
      s.logprobs.forEach((lp, t) => assert.ok(Math.abs(lp - recomputed[t]) < 1e-4, `row ${i} token ${t}: ${lp} vs ${recomputed[t]}`));
    });
  }
  m.dispose();
});

test("same seed gives the same text; greedy is deterministic; stop tokens end generation", () => {
  const m = new DecoderLM(PRESETS.micro, { seed: 7, initStd: 0.2 });
  const a = generate(m, [[1, 2, 3]], { maxNewTokens: 8, rng: new Rng(5) })[0];
  const b = generate(m, [[1, 2, 3]], { maxNewTokens: 8, rng: new Rng(5) })[0];
  assert.deepEqual(a.tokens, b.tokens);
  const g = generate(m, [[1, 2, 3]], { maxNewTokens: 8, temperature: 0, rng: new Rng(9) })[0];
  const stop = g.tokens[2];
  const s = generate(m, [[1, 2, 3]], { maxNewTokens: 8, temperature: 0, stopTokenIds: [stop], rng: new Rng(9) })[0];
  assert.equal(s.finishReason, "stop");
  assert.equal(s.tokens.at(-1), stop);
  assert.ok(s.tokens.length <= 3);
  m.dispose();
});
