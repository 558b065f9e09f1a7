import { test, after } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { disableNativeKernels, tryEnableNativeKernels } from "./index";
import { loadBlasAddon } from "./addon";

const skip = loadBlasAddon().addon === null;
after(() => disableNativeKernels("cpu"));

test("cpu Add / Sub / Multiply fast paths equal the stock kernels, and leave other broadcasts to them", { skip }, async () => {
  await tf.setBackend("cpu");
  const t = (shape: number[], seed: number) => tf.randomNormal(shape, 0, 1, "float32", seed);
  const cases: [number[], number[]][] = [
    [
      [5, 7],
      [5, 7],
    ],
    [[5, 7], [7]],
    [[7], [5, 7]],
    [
      [2, 5, 7],
      [1, 7],
    ],
    [[5, 7], []],
    [[], [5, 7]],
    [[5, 7], [1]],
    [
      [64, 130],
      [64, 130],
    ], // past NATIVE_MIN: the C loop
    [
      [3, 4],
      [3, 1],
    ], // a column: stock broadcast
    [
      [3, 1],
      [1, 4],
    ], // an outer broadcast: stock
    [[4], [3, 1]], // result larger than either operand: stock
  ];
  for (const [sa, sb] of cases) {
    const [a, b] = [t(sa, 1), t(sb, 2)];
    for (const op of [tf.add, tf.sub, tf.mul] as const) {
      disableNativeKernels("cpu");
      const stock = op(a, b);
      const want = { shape: stock.shape, values: Array.from(stock.dataSync()) };
      await tryEnableNativeKernels("cpu");
      const fast = op(a, b);
      assert.deepEqual(fast.shape, want.shape, `${op.name} ${JSON.stringify(sa)} ${JSON.stringify(sb)}`);
      assert.deepEqual(Array.from(fast.dataSync()), want.values, `${op.name} ${JSON.stringify(sa)} ${JSON.stringify(sb)}`);
      tf.dispose([stock, fast]);
    }
    tf.dispose([a, b]);
  }
  const ints = tf.add(tf.tensor1d([1, 2], "int32"), tf.tensor1d([3, 4], "int32"));
  assert.equal(ints.dtype, "int32");
  assert.deepEqual(Array.from(ints.dataSync()), [4, 6]);
});
