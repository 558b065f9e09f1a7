import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { TiedEmbedding } from "./tied-embedding";
import { lookupRows, mmTransposed } from "./ops";
import { DecoderLM } from "./model";
import { PRESETS } from "./config";
import { padBatch, tokenLogProbs } from "./logprobs";
import { Rng } from "./rng";

await tf.setBackend("cpu");

const V = 257;
const D = 24;
// repeated ids: a row read twice must get both rows' gradients
const IDS = new Int32Array([5, 17, 5, 200, 0, 256, 17, 5]);

/** A loss reading the table at both ends, as a tied decoder does: rows -> a mixing layer -> logits. */
function lossWith(table: tf.Variable, mix: tf.Tensor2D, target: tf.Tensor2D, tied: "shared" | "two buffers") {
  return () =>
    tf.tidy(() => {
      const t = table as unknown as tf.Tensor2D;
      const pair = tied === "shared" ? new TiedEmbedding(t, IDS) : null;
      const rows = pair ? pair.rows : lookupRows(t, IDS);
      const h = tf.tanh(tf.matMul(rows, mix)) as tf.Tensor2D;
      const logits = pair ? pair.head(h) : mmTransposed(h, t);
      return tf.sum(tf.mul(tf.logSoftmax(logits), target)) as tf.Scalar;
    });
}

function setup() {
  const rng = new Rng(7);
  const randn = (n: number) => Float32Array.from({ length: n }, () => rng.next() - 0.5);
  const table = tf.variable(tf.tensor2d(randn(V * D), [V, D]), true, `tied-test-${Math.random()}`);
  const mix = tf.tensor2d(randn(D * D), [D, D]);
  const target = tf.tensor2d(randn(IDS.length * V), [IDS.length, V]);
  return { table, mix, target };
}

test("the tied table's one shared gradient buffer holds what the two separate gradients sum to", () => {
  const { table, mix, target } = setup();
  const shared = tf.variableGrads(lossWith(table, mix, target, "shared"), [table]);
  const separate = tf.variableGrads(lossWith(table, mix, target, "two buffers"), [table]);
  assert.equal(shared.value.dataSync()[0], separate.value.dataSync()[0]);
  const a = shared.grads[table.name].dataSync();
  const b = separate.grads[table.name].dataSync();
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / (1e-6 + Math.abs(b[i])));
  assert.ok(worst < 1e-5, `largest relative difference ${worst}`);
  // rows read at the input (5, 17) get more than the head's part: the lookup's rows did reach the buffer
  // the head's part alone: the same forward with the rows read from a copy that is not the variable
  const copy = tf.tensor2d(table.dataSync(), [V, D]);
  const headOnlyLoss = () =>
    tf.tidy(() => {
      const h = tf.tanh(tf.matMul(tf.gather(copy, tf.tensor1d(IDS, "int32")), mix)) as tf.Tensor2D;
      return tf.sum(tf.mul(tf.logSoftmax(mmTransposed(h, table as unknown as tf.Tensor2D)), target)) as tf.Scalar;
    });
  const headOnly = tf.variableGrads(headOnlyLoss, [table]);
  const h = headOnly.grads[table.name].dataSync();
  assert.notEqual(a[5 * D], h[5 * D], "row 5 holds the lookup's gradient too");
  assert.ok(Math.abs(a[100 * D] - h[100 * D]) < 1e-6, "a row never looked up holds the head's gradient alone");
  tf.dispose([
    shared.value,
    separate.value,
    headOnly.value,
    ...Object.values(shared.grads),
    ...Object.values(separate.grads),
    ...Object.values(headOnly.grads),
  ]);
  tf.dispose([table, mix, target, copy]);
});

test("the backward pass of a tied table holds two [vocab, hidden] arrays fewer at its peak", async () => {
  const { table, mix, target } = setup();
  const peak = async (tied: "shared" | "two buffers") => {
    const info = await tf.profile(() => {
      const { value, grads } = tf.variableGrads(lossWith(table, mix, target, tied), [table]);
      tf.dispose([value, ...Object.values(grads)]);
    });
    return info.peakBytes;
  };
  const shared = await peak("shared");
  const separate = await peak("two buffers");
  const tableBytes = V * D * 4;
  assert.ok(separate - shared >= 2 * tableBytes, `peak ${shared} B shared against ${separate} B with two buffers`);
  tf.dispose([table, mix, target]);
});

test("a tied decoder trains as before: its embedding gradient matches finite differences of the loss", () => {
  const m = new DecoderLM({ ...PRESETS.micro, tieEmbeddings: true }, { seed: 5 });
  const batch = padBatch([[3, 9, 3, 14, 2]]);
  const loss = () => tf.tidy(() => tf.neg(tf.sum(tokenLogProbs(m, batch).logp)) as tf.Scalar);
  const emb = m.params.get("model.embed_tokens.weight") as tf.Variable;
  const { grads, value } = tf.variableGrads(loss, [emb]);
  const g = grads[emb.name].dataSync();
  const D2 = emb.shape[1] as number;
  // token 3 is read at the input (twice) and scored at the output; token 40 only scored
  for (const idx of [3 * D2 + 1, 40 * D2 + 2]) {
    const h = 1e-2;
    const base = emb.dataSync().slice();
    const at = (delta: number) => {
      const moved = base.slice();
      moved[idx] += delta;
      emb.assign(tf.tensor(moved, emb.shape));
      return loss().dataSync()[0];
    };
    const numeric = (at(h) - at(-h)) / (2 * h);
    emb.assign(tf.tensor(base, emb.shape));
    assert.ok(
      Math.abs(numeric - g[idx]) < 2e-2 * Math.max(1, Math.abs(numeric)),
      `index ${idx}: ${g[idx]} vs finite difference ${numeric}`,
    );
  }
  tf.dispose([value, ...Object.values(grads)]);
  m.dispose();
});
