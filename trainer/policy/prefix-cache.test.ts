import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { DecoderLM } from "./model";
import { PRESETS } from "./config";
import { BatchedSampler } from "./batched-sampler";
import { Rng } from "./rng";
import { commonPrefixLength } from "./prefix-cache";
import { assertPrefixReuseExact } from "./testing/prefix-reuse";

await tf.setBackend("cpu");

test("prefix caching (stock ops): later turns run only their new tokens and sample exactly what a full prefill samples", () => {
  const m = new DecoderLM(PRESETS.micro, { seed: 7, initStd: 0.2 });
  assertPrefixReuseExact(m);
  m.dispose();
});

test("the sampler's sessions keep each episode's cache between turns, within the byte budget, and free it on close", async () => {
  const m = new DecoderLM(PRESETS.micro, { seed: 3, initStd: 0.2 });
  const before = tf.memory().numTensors;
  async function play(prefixCacheBytes?: number) {
    const sampler = new BatchedSampler(m, { maxNewTokens: 3, temperature: 1, prefixCacheBytes });
    const episodes = [0, 1].map((i) => ({ session: sampler.open(), rng: new Rng(i), prompt: [1 + i, 2, 3, 4, 5 + i] }));
    const replies: number[][] = [];
    for (let turn = 0; turn < 3; turn++) {
      const samples = await Promise.all(episodes.map((e) => e.session.sample(e.prompt, e.rng)));
      samples.forEach((s, i) => {
        replies.push(s.tokens);
        episodes[i].prompt = [...episodes[i].prompt, ...s.tokens, 9];
      });
    }
    episodes.forEach((e) => e.session.close());
    return { stats: sampler.stats(), replies };
  }
  const cached = await play();
  const off = await play(0);
  // the same conversations either way; with the cache, turns 2 and 3 reuse all but the last reply token and the answer
  assert.deepEqual(cached.replies, off.replies);
  assert.equal(off.stats.reusedTokens, 0);
  assert.ok(cached.stats.reusedTokens >= 0.6 * cached.stats.promptTokens - 5 * 2, JSON.stringify(cached.stats));
  // a budget smaller than one episode's cache keeps nothing
  const tiny = await play(1);
  assert.equal(tiny.stats.reusedTokens, 0);
  assert.equal(tf.memory().numTensors, before, "closed sessions must free their caches");
  await assert.rejects(
    (async () => {
      const s = new BatchedSampler(m, { maxNewTokens: 1 }).open();
      s.close();
      await s.sample([1, 2], new Rng(1));
    })(),
    /closed session/,
  );
  m.dispose();
});

test("commonPrefixLength", () => {
  assert.equal(commonPrefixLength([1, 2, 3], [1, 2, 4, 5]), 2);
  assert.equal(commonPrefixLength([], [1]), 0);
  assert.equal(commonPrefixLength([1, 2], [1, 2]), 2);
});

test("a re-rendered prompt (a template that is not prefix-stable) reuses only what it shares with the cache, and samples as a full prefill does", async () => {
  const m = new DecoderLM(PRESETS.micro, { seed: 4, initStd: 0.2 });
  const sampler = new BatchedSampler(m, { maxNewTokens: 4, temperature: 1 });
  const session = sampler.open();
  const first = [3, 4, 5, 6, 7, 8, 9, 10];
  const reply = await session.sample(first, new Rng(1));
  // the next rendering drops tokens 6..7 (earlier reasoning, say) and goes on differently from there
  const rerendered = [3, 4, 5, 8, 9, 10, ...reply.tokens, 11, 12];
  const cached = await session.sample(rerendered, new Rng(2));
  assert.equal(cached.reusedTokens, 3, "only the first 3 tokens are the same");
  const fresh = await new BatchedSampler(m, { maxNewTokens: 4, temperature: 1, prefixCacheBytes: 0 }).sample(rerendered, new Rng(2));
  assert.deepEqual(cached.tokens, fresh.tokens);
  cached.logprobs.forEach((lp, t) => assert.ok(Math.abs(lp - fresh.logprobs[t]) < 1e-4));
  session.close();
  m.dispose();
});
