import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { DecoderLM } from "./model";
import { PRESETS } from "./config";
import { BatchedSampler } from "./batched-sampler";
import { generate } from "./sampling";
import { Rng } from "./rng";

await tf.setBackend("cpu");

test("episodes waiting together are decoded in one batch, each sampling what it would have sampled alone", async () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 4, initStd: 0.2 });
  const prompts = [[5, 6, 7, 8, 9], [40, 41], [100, 101, 102]];
  const sampler = new BatchedSampler(model, { maxNewTokens: 10, temperature: 1 });
  prompts.forEach(() => sampler.enter());
  const batched = await Promise.all(prompts.map((p, i) => sampler.sample(p, new Rng(50 + i))));
  assert.deepEqual(sampler.stats(), { batches: 1, requests: 3, meanBatch: 3 });
  prompts.forEach((p, i) => {
    const [alone] = generate(model, [p], { maxNewTokens: 10, temperature: 1, rng: new Rng(50 + i) });
    assert.deepEqual(batched[i].tokens, alone.tokens, `prompt ${i}: same tokens in a batch as alone`);
    batched[i].logprobs.forEach((lp, t) => assert.ok(Math.abs(lp - alone.logprobs[t]) < 1e-4));
  });
  model.dispose();
});

test("a request is not held forever by an episode that is busy elsewhere (slow simulator call)", async () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 4 });
  const sampler = new BatchedSampler(model, { maxNewTokens: 3, maxWaitMs: 30 });
  sampler.enter();
  sampler.enter(); // the second episode never asks
  const sample = await sampler.sample([1, 2, 3], new Rng(1));
  assert.equal(sample.tokens.length, 3);
  assert.equal(sampler.stats().batches, 1);
  sampler.leave();
  sampler.leave();
  model.dispose();
});

test("a failing generate rejects every request of its batch instead of hanging them", async () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 4 });
  const sampler = new BatchedSampler(model, { maxNewTokens: 3 });
  sampler.enter();
  sampler.enter();
  const tooLong = Array.from({ length: 300 }, () => 1); // longer than maxPositions 256
  const results = await Promise.allSettled([sampler.sample(tooLong, new Rng(1)), sampler.sample([1, 2], new Rng(2))]);
  assert.deepEqual(results.map((r) => r.status), ["rejected", "rejected"]);
  model.dispose();
});
