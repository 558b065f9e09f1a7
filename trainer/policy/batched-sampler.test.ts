import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { DecoderLM } from "./model";
import { PRESETS } from "./config";
import { BatchedSampler } from "./batched-sampler";
import { generate } from "./sampling";
import { Rng } from "./rng";

await tf.setBackend("cpu");

test("episodes waiting together are decoded in one batch, each sampling what it would have sampled alone, turn after turn (later turns from the cached prefix)", async () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 4, initStd: 0.2 });
  const prompts = [
    [5, 6, 7, 8, 9],
    [40, 41],
    [100, 101, 102],
  ];
  // a stop token that ends the first row after its third token, so rows of one batch run for different lengths
  const probe = generate(model, [prompts[0]], { maxNewTokens: 10, temperature: 1, rng: new Rng(50) })[0];
  const opts = { maxNewTokens: 10, temperature: 1, stopTokenIds: [probe.tokens[2]] };
  const sampler = new BatchedSampler(model, opts);
  const sessions = prompts.map(() => sampler.open());
  const rngs = prompts.map((_, i) => new Rng(50 + i));
  const turn1 = await Promise.all(prompts.map((p, i) => sessions[i].sample(p, rngs[i])));
  assert.deepEqual(sampler.stats(), { batches: 1, requests: 3, meanBatch: 3, promptTokens: 10, reusedTokens: 0 });
  // each episode's second turn continues from its first, with the same generator: all but the first turn's last
  // token (never run) comes from the session's cache
  const turn2 = await Promise.all(prompts.map((p, i) => sessions[i].sample([...p, ...turn1[i].tokens, 9], rngs[i])));
  const cachedTokens = prompts.reduce((sum, p, i) => sum + p.length + turn1[i].tokens.length - 1, 0);
  assert.equal(sampler.stats().reusedTokens, cachedTokens);
  sessions.forEach((s) => s.close());
  prompts.forEach((p, i) => {
    const rng = new Rng(50 + i);
    const [alone1] = generate(model, [p], { ...opts, rng });
    const [alone2] = generate(model, [[...p, ...alone1.tokens, 9]], { ...opts, rng });
    assert.deepEqual(turn1[i].tokens, alone1.tokens, `prompt ${i}: same first turn in a batch as alone`);
    assert.deepEqual(turn2[i].tokens, alone2.tokens, `prompt ${i}: same second turn in a batch as alone`);
    turn1[i].logprobs.forEach((lp, t) => assert.ok(Math.abs(lp - alone1.logprobs[t]) < 1e-4));
  });
  assert.ok(new Set(turn1.map((t) => t.tokens.length)).size > 1, "rows of the batch ended at different lengths");
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

test("a request generate cannot take fails alone: its batch-mates still get their turns, nothing hangs", async () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 4 });
  const sampler = new BatchedSampler(model, { maxNewTokens: 3 });
  sampler.enter();
  sampler.enter();
  const tooLong = Array.from({ length: 300 }, () => 1); // longer than maxPositions 256
  const results = await Promise.allSettled([sampler.sample(tooLong, new Rng(1)), sampler.sample([1, 2], new Rng(2))]);
  assert.deepEqual(
    results.map((r) => r.status),
    ["rejected", "fulfilled"],
  );
  assert.match(String((results[0] as PromiseRejectedResult).reason), /leaves no room to generate within maxPositions 256/);
  const [alone] = generate(model, [[1, 2]], { maxNewTokens: 3, rng: new Rng(2) });
  assert.deepEqual((results[1] as PromiseFulfilledResult<{ tokens: number[] }>).value.tokens, alone.tokens);
  model.dispose();
});
