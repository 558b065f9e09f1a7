import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { loadBlasAddon, type BlasAddon } from "./addon";
import { bf16WeightRoundings, roundedWeight } from "./bf16-weight-cache";
import { nativeAdamWInPlace } from "./fused-kernels";
import { selectMatmulCompute } from "./matmul-compute";
import { disableNativeKernels, tryEnableNativeKernels } from "./index";

const { addon } = loadBlasAddon();
const bf16Built = Boolean(addon?.gemmRoundedB && addon.computeLibrary && !addon.computeLibrary().startsWith("none"));
const skip = bf16Built ? false : "addon built without oneDNN (apt-get install libdnnl-dev; node native/build.mjs)";

/** Deterministic values in [-1, 1). */
function values(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

/** x·W and dy·Wᵀ under bf16 compute, with the weight cache on or off. */
async function products(x: tf.Tensor2D, w: tf.Variable, cache: boolean): Promise<Float32Array[]> {
  const before = process.env.ROLLOUT_LAB_BF16_WEIGHT_CACHE;
  process.env.ROLLOUT_LAB_BF16_WEIGHT_CACHE = cache ? "1" : "0";
  try {
    const y = tf.matMul(x, w);
    const dx = tf.matMul(x, w, false, true);
    const out = [(await y.data()) as Float32Array, (await dx.data()) as Float32Array];
    tf.dispose([y, dx]);
    return out;
  } finally {
    if (before === undefined) delete process.env.ROLLOUT_LAB_BF16_WEIGHT_CACHE;
    else process.env.ROLLOUT_LAB_BF16_WEIGHT_CACHE = before;
  }
}

test(
  "a weight's bf16 copy gives the same products as rounding it per product, and AdamW in place rewrites it with the weights",
  { skip },
  async (t) => {
    await tf.setBackend("cpu");
    await tryEnableNativeKernels("cpu");
    assert.equal(selectMatmulCompute("bf16", addon).compute, "bf16");
    if (addon!.compute!() === "bf16-sgemm") {
      selectMatmulCompute("fp32", addon);
      disableNativeKernels("cpu");
      return t.skip("oneDNN's bf16 failed its float64 check on this CPU: every product runs as sgemm, the copy is not used");
    }
    const D = 320; // every side >= 256: the products run on oneDNN, where the copy is used
    const x = tf.tensor2d(values(D * D, 1), [D, D]);
    const init = tf.tensor2d(values(D * D, 2), [D, D]);
    const w = tf.variable(init);
    init.dispose(); // the variable alone holds its buffer, as AdamW in place requires
    try {
      const first = await products(x, w, true);
      assert.deepEqual(first, await products(x, w, false), "cached and per-product rounding agree bit for bit");

      // One AdamW step written into w's own buffer: a product after it must see the new weights, not the old copy.
      const m = tf.zeros([D, D]);
      const v = tf.zeros([D, D]);
      const g = tf.tensor2d(values(D * D, 3), [D, D]);
      const hp = { lr: 0.05, b1: 0.9, b2: 0.999, eps: 1e-8, wd: 0, bc1: 0.1, bc2: 0.001, clip: 1 };
      assert.ok(nativeAdamWInPlace(addon, w, m, v, g, hp), "the update ran in place");
      const roundingsBefore = bf16WeightRoundings();
      const after = await products(x, w, true);
      assert.equal(bf16WeightRoundings(), roundingsBefore, "the update rewrote the copy: the products did not round W again");
      assert.notDeepEqual(after[0], first[0], "the update changed the product");
      assert.deepEqual(after, await products(x, w, false), "the copy was refreshed after the in-place update");
      tf.dispose([m, v, g]);
    } finally {
      tf.dispose([x, w]);
      selectMatmulCompute("fp32", addon);
      disableNativeKernels("cpu");
    }
  },
);

test("a weight is rounded once however many products read it; activations and small weights are not cached", { skip }, async () => {
  await tf.setBackend("cpu");
  let encodes = 0;
  const counting: BlasAddon = { ...addon!, bf16Encode: (...args) => (encodes++, addon!.bf16Encode(...args)) };
  const w = tf.variable(tf.tensor2d(values(512 * 256, 4), [512, 256]));
  const activation = tf.tensor2d(values(512 * 256, 5), [512, 256]);
  const small = tf.variable(tf.tensor2d(values(64 * 64, 6), [64, 64]));
  const valuesOf = (t: tf.Tensor) =>
    (tf.backend() as unknown as { data: { get(id: object): { values: Float32Array } } }).data.get(t.dataId).values;
  try {
    const first = roundedWeight(counting, w.dataId, valuesOf(w));
    assert.ok(first);
    assert.equal(roundedWeight(counting, w.dataId, valuesOf(w)), first, "the same copy serves the next product");
    assert.equal(encodes, 1);
    assert.equal(roundedWeight(counting, activation.dataId, valuesOf(activation)), null);
    assert.equal(roundedWeight(counting, small.dataId, valuesOf(small)), null);
    // The copy holds W rounded to bf16: the upper halves of W's float32 bits, rounded to nearest.
    const decoded = new Float32Array(512 * 256);
    addon!.bf16Decode(decoded.length, first, 0, decoded, 0);
    const original = valuesOf(w);
    for (let i = 0; i < decoded.length; i += 997) assert.ok(Math.abs(decoded[i] - original[i]) <= Math.abs(original[i]) * 2 ** -8);
  } finally {
    tf.dispose([w, activation, small]);
  }
});
