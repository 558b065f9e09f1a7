import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import "@tensorflow/tfjs-backend-wasm";
import { setWasmPaths } from "@tensorflow/tfjs-backend-wasm";
import { localWasmDir } from "../select";
import { disableNativeKernels, tryEnableNativeKernels } from "./index";
import { loadBlasAddon } from "./addon";
import { DecoderLM } from "../../policy/model";
import { PRESETS } from "../../policy/config";
import { setAttentionMode } from "../../policy/attention";
import { padBatch, tokenLogProbs } from "../../policy/logprobs";
import { generate } from "../../policy/sampling";
import { Rng } from "../../policy/rng";

const skip = loadBlasAddon().addon === null;

// The same kernels run on the wasm heap and on the cpu backend's own typed arrays (kernel-memory.ts).
for (const backend of ["wasm", "cpu"] as const)
  describe(backend, () => {
    before(async () => {
      if (skip) return;
      if (backend === "wasm") setWasmPaths(localWasmDir());
      assert.ok(await tf.setBackend(backend));
    });
    after(async () => {
      if (skip) return;
      disableNativeKernels(backend);
      await tf.setBackend("cpu");
    });

    /** Runs `f` with the stock kernels and with the native ones; returns both results as plain arrays. */
    async function both(f: () => tf.Tensor): Promise<[tf.TypedArray, tf.TypedArray, number[]]> {
      disableNativeKernels(backend);
      const s = f();
      const stock = s.dataSync().slice();
      const shape = s.shape;
      s.dispose();
      await tryEnableNativeKernels(backend);
      const n = f();
      assert.deepEqual(n.shape, shape);
      const native = n.dataSync().slice();
      n.dispose();
      return [stock, native, shape];
    }

    const seq = (n: number) => Array.from({ length: n }, (_, i) => ((i * 37) % 101) / 10 - 5);

    test("transpose matches the stock kernel for the permutations the model and its gradients use", { skip }, async () => {
      const cases: [number[], number[]][] = [
        [
          [37, 53],
          [1, 0],
        ],
        [
          [2, 5, 3, 4],
          [0, 2, 1, 3],
        ], // attention heads out of [B,T,H,hd]
        [
          [2, 5, 3, 4],
          [0, 2, 3, 1],
        ], // general odometer path
        [
          [1, 7, 1, 6],
          [3, 2, 1, 0],
        ], // size-1 axes dropped
        [
          [3, 4, 5],
          [0, 1, 2],
        ], // identity permutation
        [
          [4, 6, 5],
          [2, 0, 1],
        ],
      ];
      for (const [shape, perm] of cases) {
        const n = shape.reduce((p, d) => p * d, 1);
        for (const dtype of ["float32", "int32"] as const) {
          const x = tf.tensor(
            seq(n).map((v) => (dtype === "int32" ? Math.round(v * 10) : v)),
            shape,
            dtype,
          );
          const [a, b] = await both(() => tf.transpose(x, perm));
          assert.deepEqual(b, a, `${dtype} ${shape} perm ${perm}`);
          x.dispose();
        }
      }
    });

    test("gather matches the stock kernel on axis 0 and 1, and still rejects out-of-range ids", { skip }, async () => {
      const table = tf.tensor2d(seq(12 * 5), [12, 5]);
      const ids = tf.tensor1d([3, 0, 11, 3, 7], "int32");
      let [a, b] = await both(() => tf.gather(table, ids));
      assert.deepEqual(b, a);
      [a, b] = await both(() => tf.gather(table, tf.tensor1d([4, 1, 1], "int32"), 1));
      assert.deepEqual(b, a);
      await tryEnableNativeKernels(backend);
      assert.throws(() => tf.gather(table, tf.tensor1d([12], "int32")), /not in \[0, 11\]/);
      tf.dispose([table, ids]);
    });

    test("sum over leading axes matches the stock kernel; other reductions are unchanged", { skip }, async () => {
      const x = tf.tensor3d(seq(6 * 7 * 5), [6, 7, 5]);
      for (const [axis, keepDims] of [
        [0, false],
        [[0, 1], true],
        [[1, 0], false],
        [1, false],
        [-1, true],
        [[0, 2], false],
      ] as [number | number[], boolean][]) {
        const [a, b, shape] = await both(() => tf.sum(x, axis, keepDims));
        assert.equal(b.length, a.length, `axis ${axis}`);
        for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) < 1e-4, `axis ${axis} keepDims ${keepDims} shape ${shape}`);
      }
      x.dispose();
    });

    test("exp matches the stock kernel to float precision; identity/cast share buffers safely", { skip }, async () => {
      const x = tf.tensor1d(seq(1000));
      const [a, b] = await both(() => tf.exp(x));
      for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) <= 1e-6 * Math.abs(a[i]) + 1e-7);
      await tryEnableNativeKernels(backend);
      const c = tf.clone(x);
      const d = tf.cast(c, "float32");
      x.dispose();
      c.dispose();
      assert.equal(d.dataSync()[5], Math.fround(seq(1000)[5]), "a shared buffer outlives the tensors it came from");
      assert.equal(tf.cast(d, "int32").dtype, "int32");
      d.dispose();
    });

    test("a training step of the decoder gives the same loss and gradients with native kernels", { skip }, async () => {
      setAttentionMode("batched");
      const model = new DecoderLM(PRESETS.micro, { seed: 5 });
      const batch = padBatch([
        [1, 5, 9, 2, 6, 5, 3, 5],
        [8, 9, 7, 9, 3, 2, 3, 8],
      ]);
      const run = () => {
        const { value, grads } = tf.variableGrads(() => tf.neg(tf.mean(tokenLogProbs(model, batch).logp)) as tf.Scalar);
        const flat = [
          value.dataSync()[0],
          ...Object.keys(grads)
            .sort()
            .flatMap((k) => Array.from(grads[k].dataSync().slice(0, 16))),
        ];
        tf.dispose([value, ...Object.values(grads)]);
        return flat;
      };
      disableNativeKernels(backend);
      const stock = run();
      await tryEnableNativeKernels(backend);
      const before = tf.memory().numTensors;
      const native = run();
      assert.equal(tf.memory().numTensors, before, "no tensors leak through the shared-buffer kernels");
      for (let i = 0; i < stock.length; i++) assert.ok(Math.abs(stock[i] - native[i]) < 1e-4, `value ${i}: ${stock[i]} vs ${native[i]}`);
      setAttentionMode(null);
      model.dispose();
    });

    test("KV-cache sampling yields the same tokens and log-probs with native kernels", { skip }, async () => {
      const model = new DecoderLM(PRESETS.micro, { seed: 8 });
      const prompts = [
        [1, 2, 3],
        [9, 8, 7, 6, 5],
      ]; // different lengths: left padding and key masks are exercised
      const run = () => generate(model, prompts, { maxNewTokens: 6, temperature: 1, rng: new Rng(3) });
      disableNativeKernels(backend);
      const stock = run();
      await tryEnableNativeKernels(backend);
      const native = run();
      for (let i = 0; i < prompts.length; i++) {
        assert.deepEqual(native[i].tokens, stock[i].tokens);
        native[i].logprobs.forEach((lp, j) => assert.ok(Math.abs(lp - stock[i].logprobs[j]) < 1e-4));
      }
      model.dispose();
    });
  });
