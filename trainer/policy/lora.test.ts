import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { DecoderLM } from "./model";
import { PRESETS } from "./config";
import { AdamW } from "./optimizer";
import { padBatch, tokenLogProbs } from "./logprobs";
import { LoraConfigError } from "./lora";

await tf.setBackend("cpu");

test("LoRA starts at the base model, trains only the adapters, and its frozen copy computes what it computes", () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 4 });
  const batch = padBatch([[1, 2, 3, 4, 5, 6]]);
  const lp = () => tf.tidy(() => tokenLogProbs(model, batch).logp).arraySync()[0];
  const base = lp();
  model.enableLora({ rank: 4, alpha: 8, targets: ["q_proj", "v_proj", "down_proj"] });
  assert.deepEqual(lp(), base, "B = 0 must leave outputs unchanged");
  const vars = model.trainableVariables();
  assert.equal(vars.length, 2 * 3 * PRESETS.micro.numLayers);
  const w0 = model.p("model.layers.0.self_attn.q_proj.weight").dataSync().slice();
  const opt = new AdamW(vars, { lr: 1e-2 });
  for (let i = 0; i < 3; i++) {
    const { grads, value } = tf.variableGrads(() => tf.neg(tf.sum(tokenLogProbs(model, batch).logp)) as tf.Scalar, vars);
    opt.apply(grads, 1);
    tf.dispose([value, ...Object.values(grads)]);
  }
  const tuned = lp();
  assert.ok(tuned.slice(1).reduce((a, b) => a + b) > base.slice(1).reduce((a, b) => a + b), "adapters did not learn");
  assert.deepEqual(Array.from(model.p("model.layers.0.self_attn.q_proj.weight").dataSync()), Array.from(w0), "base weight changed");
  const merged = model.frozenCopy();
  const mergedLp = tf.tidy(() => tokenLogProbs(merged, batch).logp).arraySync()[0];
  mergedLp.forEach((v, i) => assert.ok(Math.abs(v - tuned[i]) < 1e-4));
  assert.throws(() => new DecoderLM(PRESETS.micro).enableLora({ rank: 2, alpha: 2, targets: ["qkv" as "q_proj"] }), LoraConfigError);
  merged.dispose();
  model.dispose();
  opt.dispose();
});

test("a LoRA run's KL reference shares the frozen base weights: adapters only, and it stays the policy it was", () => {
  const model = new DecoderLM(PRESETS.micro, { seed: 4 });
  model.enableLora({ rank: 2, alpha: 4, targets: ["q_proj", "v_proj"] }, 1);
  const batch = padBatch([
    [1, 2, 3, 4, 5, 6],
    [7, 8, 9],
  ]);
  const vars = model.trainableVariables();
  const opt = new AdamW(vars, { lr: 1e-2 });
  const train = () => {
    const { grads, value } = tf.variableGrads(() => tf.neg(tf.sum(tokenLogProbs(model, batch).logp)) as tf.Scalar, vars);
    opt.apply(grads, 1);
    tf.dispose([value, ...Object.values(grads)]);
  };
  train(); // adapters away from their zero start, so the snapshot is not trivially the base model
  const lp = (m: DecoderLM) => tf.tidy(() => tokenLogProbs(m, batch).logp).arraySync()[0];
  const bytesBefore = tf.memory().numBytes;
  const reference = model.frozenCopy();
  const adapterBytes = vars.reduce((n, v) => n + 4 * v.size, 0);
  const rotaryBytes = 4 * 3 * PRESETS.micro.maxPositions * (PRESETS.micro.hiddenSize / PRESETS.micro.numHeads);
  assert.ok(
    tf.memory().numBytes - bytesBefore <= adapterBytes + rotaryBytes,
    `the reference allocated ${tf.memory().numBytes - bytesBefore} bytes`,
  );
  const atSnapshot = lp(model);
  lp(reference).forEach((v, i) => assert.ok(Math.abs(v - atSnapshot[i]) < 1e-5));
  train();
  train();
  const moved = lp(model);
  assert.ok(
    moved.some((v, i) => Math.abs(v - atSnapshot[i]) > 1e-4),
    "the policy moved",
  );
  lp(reference).forEach((v, i) => assert.ok(Math.abs(v - atSnapshot[i]) < 1e-5, "the reference did not move with it"));
  // copyWeightsFrom (the SFT warm-start's reference update) takes the adapters' current values
  const later = model.frozenCopy();
  reference.copyWeightsFrom(later);
  lp(reference).forEach((v, i) => assert.ok(Math.abs(v - moved[i]) < 1e-5));
  later.dispose();
  reference.dispose();
  assert.ok(
    lp(model).every((v, i) => Math.abs(v - moved[i]) < 1e-6),
    "disposing the reference left the policy's weights alone",
  );
  opt.dispose();
  model.dispose();
});

test("frozen base weights skip their own gradient, and the adapters' gradients are what the full backward gives", () => {
  for (const tieEmbeddings of [false, true]) {
    const model = new DecoderLM({ ...PRESETS.micro, tieEmbeddings }, { seed: 6 });
    model.enableLora({ rank: 2, alpha: 4, targets: ["q_proj", "k_proj", "v_proj", "o_proj"] }, 2);
    const batch = padBatch([
      [1, 2, 3, 4, 5, 6],
      [7, 8, 9],
    ]);
    const vars = model.trainableVariables();
    // Give B non-zero values: with B = 0 the gradient reaching A would be zero and prove nothing.
    for (const v of vars) if (v.name.endsWith("lora_B")) v.assign(tf.randomNormal(v.shape, 0, 0.1, "float32", 3));
    const grads = () =>
      tf.tidy(() => {
        const { grads: g, value } = tf.variableGrads(() => tf.neg(tf.sum(tokenLogProbs(model, batch).logp)) as tf.Scalar, vars);
        value.dispose();
        return vars.map((v) => Array.from(g[v.name].dataSync()));
      });
    const frozenPath = grads();
    // Marking the base trainable sends it through the full backward (dW computed, then unused): same adapter grads.
    for (const v of model.params.values()) v.trainable = true;
    const fullPath = grads();
    for (const v of model.params.values()) v.trainable = false;
    frozenPath.forEach((g, i) =>
      g.forEach((x, j) =>
        assert.ok(Math.abs(x - fullPath[i][j]) < 1e-5, `tied=${tieEmbeddings} ${vars[i].name}[${j}]: ${x} vs ${fullPath[i][j]}`),
      ),
    );
    assert.ok(
      frozenPath.flat().some((x) => Math.abs(x) > 1e-6),
      "adapter gradients are not all zero",
    );
    model.dispose();
  }
});
