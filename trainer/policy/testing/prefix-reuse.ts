/**
 * The check that prefix caching changes nothing but the work done: two episodes of different lengths play three
 * turns in one batch, each later turn continuing from the keys and values the previous turn left, and every turn
 * samples what a full prefill of the same prompts samples (same tokens, log-probs within float tolerance), with
 * only the new tokens run. Used on the stock path (prefix-cache.test.ts) and on the native kernels (fused-suite).
 */
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import type { DecoderLM } from "../model";
import { generate, type Sample } from "../sampling";
import { disposePrefix, type PrefixCache } from "../prefix-cache";
import { Rng } from "../rng";

export function assertPrefixReuseExact(m: DecoderLM): void {
  const before = tf.memory().numTensors;
  let prompts = [
    [3, 4, 5, 6, 7, 8, 9],
    [10, 11, 12],
  ];
  let prefixes: (PrefixCache | undefined)[] = [undefined, undefined];
  for (let turn = 0; turn < 3; turn++) {
    const opts = { maxNewTokens: 4, temperature: 1, rng: [new Rng(10 + turn), new Rng(20 + turn)] };
    const cached: Sample[] = generate(m, prompts, { ...opts, prefixes, keepPrefix: true });
    const full: Sample[] = generate(m, prompts, { ...opts, rng: [new Rng(10 + turn), new Rng(20 + turn)] });
    cached.forEach((s, b) => {
      assert.deepEqual(s.tokens, full[b].tokens, `turn ${turn} row ${b}: tokens`);
      s.logprobs.forEach((lp, t) =>
        assert.ok(Math.abs(lp - full[b].logprobs[t]) < 1e-4, `turn ${turn} row ${b} token ${t}: ${lp} vs ${full[b].logprobs[t]}`),
      );
      // everything of the previous turn but its last sampled token came from the cache
      const expected = turn === 0 ? 0 : prefixes[b]!.tokens.length;
      assert.equal(s.reusedTokens, expected, `turn ${turn} row ${b}: reused tokens`);
      assert.deepEqual(s.prefix!.tokens, [...prompts[b], ...s.tokens.slice(0, -1)]);
    });
    prefixes.forEach(disposePrefix);
    prefixes = cached.map((s) => s.prefix);
    // the environment answers with a few tokens of its own
    prompts = prompts.map((p, b) => [...p, ...cached[b].tokens, 30 + turn, 40 + b]);
  }
  prefixes.forEach(disposePrefix);
  assert.equal(tf.memory().numTensors, before, "prefix caching leaked tensors");
}
