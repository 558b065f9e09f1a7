/**
 * The update takes the sampler's log-probs as its old log-probs instead of recomputing them (real-deps.ts): they
 * must be what the update's own forward pass gives for the same tokens, at the sampling temperature and whatever
 * top-p cut the draw (the update's distribution is the full tempered softmax).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { DecoderLM } from "./model";
import { PRESETS } from "./config";
import { computeLogProbs } from "./logprobs";
import { generate } from "./sampling";
import { Rng } from "./rng";

await tf.setBackend("cpu");

test("sampled log-probs equal the update's recomputed old log-probs, at temperatures 1 and 0.7 and with top-p", () => {
  checkAgainstUpdate(new DecoderLM(PRESETS.micro, { seed: 11, initStd: 0.2 }));
});

test("with tied embeddings too: the head transposed once per generation samples what the training forward computes", () => {
  checkAgainstUpdate(new DecoderLM({ ...PRESETS.micro, tieEmbeddings: true, vocabSize: 1000 }, { seed: 12, initStd: 0.2 }));
});

function checkAgainstUpdate(model: DecoderLM) {
  const before = tf.memory().numTensors;
  const prompt = [3, 14, 15, 92, 65, 35];
  for (const [temperature, topP] of [
    [1, 1],
    [0.7, 1],
    [0.7, 0.9],
    [1.3, 0.8],
  ] as const) {
    const [sample] = generate(model, [prompt], { maxNewTokens: 12, temperature, topP, rng: new Rng(7) });
    const [recomputed] = computeLogProbs(model, [[...prompt, ...sample.tokens]], 8, temperature);
    sample.logprobs.forEach((lp, t) => {
      const want = recomputed[prompt.length + t];
      assert.ok(Math.abs(lp - want) < 1e-4, `T=${temperature} top-p=${topP}, token ${t}: sampled ${lp} vs recomputed ${want}`);
    });
  }
  assert.equal(tf.memory().numTensors, before, "generation leaked tensors (a cached head not disposed?)");
  model.dispose();
}
