import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { DecoderLM } from "./model";
import { PRESETS, ModelConfigError, countParameters, validateModelConfig } from "./config";
import { setAttentionMode } from "./attention";
import { tokenLogProbs, padBatch } from "./logprobs";

await tf.setBackend("cpu");

test("invalid configs fail with a message naming the field", () => {
  assert.throws(
    () => validateModelConfig({ ...PRESETS.micro, numHeads: 5 }),
    (e: unknown) => e instanceof ModelConfigError && /numHeads \(5\) must divide hiddenSize \(32\)/.test(e.message),
  );
  assert.throws(() => validateModelConfig({ ...PRESETS.micro, numKvHeads: 3 }), /numKvHeads \(3\) must divide numHeads/);
  assert.throws(() => new DecoderLM({ ...PRESETS.micro, numLayers: 0 }), /numLayers must be a positive integer/);
});

test("parameter names follow transformers and the count matches the variables", () => {
  const m = new DecoderLM({ ...PRESETS.micro, attentionBias: true });
  assert.ok(m.params.has("model.layers.1.self_attn.q_proj.weight"));
  assert.ok(m.params.has("model.layers.0.self_attn.k_proj.bias"));
  assert.ok(m.params.has("lm_head.weight"));
  const total = [...m.params.values()].reduce((s, v) => s + v.size, 0);
  assert.equal(total, countParameters(m.config));
  m.dispose();
});

test("loop2d and batched attention give the same log-probs, with grouped-query heads", () => {
  const m = new DecoderLM(PRESETS.micro, { seed: 3 });
  const batch = padBatch([
    [1, 2, 3, 4, 5, 6],
    [7, 8, 9, 10, 11, 12],
  ]);
  setAttentionMode("loop2d");
  const a = tf.tidy(() => tokenLogProbs(m, batch).logp).arraySync();
  setAttentionMode("batched");
  const b = tf.tidy(() => tokenLogProbs(m, batch).logp).arraySync();
  setAttentionMode(null);
  for (let i = 0; i < a.length; i++) for (let j = 0; j < a[i].length; j++) assert.ok(Math.abs(a[i][j] - b[i][j]) < 1e-5);
  assert.equal(a[0][0], 0);
  assert.ok(a[0][3] < 0);
  m.dispose();
});

test("the next-token log-probs are causal: changing a later token leaves earlier positions unchanged", () => {
  const m = new DecoderLM(PRESETS.micro, { seed: 1 });
  const x = tf.tidy(() => tokenLogProbs(m, padBatch([[5, 6, 7, 8]])).logp).arraySync()[0];
  const y = tf.tidy(() => tokenLogProbs(m, padBatch([[5, 6, 7, 99]])).logp).arraySync()[0];
  assert.ok(Math.abs(x[2] - y[2]) < 1e-6);
  assert.notEqual(x[3], y[3]);
  m.dispose();
});

test("gradients reach every weight, including the embedding through the custom lookup", () => {
  const m = new DecoderLM({ ...PRESETS.micro, tieEmbeddings: true }, { seed: 2 });
  const batch = padBatch([[1, 2, 3, 4, 5]]);
  const { grads, value } = tf.variableGrads(() => tf.neg(tf.sum(tokenLogProbs(m, batch).logp)) as tf.Scalar);
  for (const [name, g] of Object.entries(grads)) assert.ok(tf.sum(tf.abs(g)).dataSync()[0] > 0, `zero gradient for ${name}`);
  assert.equal(Object.keys(grads).length, m.params.size);
  tf.dispose([value, ...Object.values(grads)]);
  m.dispose();
});

test("log-probs at the sampling temperature: logits divided by T (verl), so a huge T tends to uniform; T 1 and 0 are the plain ones", () => {
  const m = new DecoderLM(PRESETS.micro, { seed: 4 });
  const batch = padBatch([[3, 1, 4, 1, 5, 9]]);
  const at = (t?: number) => tf.tidy(() => tokenLogProbs(m, batch, false, t).logp).arraySync()[0];
  const plain = at();
  assert.deepEqual(at(1), plain);
  assert.deepEqual(at(0), plain, "greedy decoding has no distribution: treated as 1");
  const hot = at(1e6);
  const uniform = -Math.log(m.config.vocabSize);
  for (let t = 1; t < hot.length; t++) assert.ok(Math.abs(hot[t] - uniform) < 1e-3, `position ${t}: ${hot[t]} vs ${uniform}`);
  const warm = at(2);
  assert.ok(
    warm.slice(1).some((v, t) => Math.abs(v - plain[t + 1]) > 1e-4),
    "T = 2 changes the log-probs",
  );
  m.dispose();
});
