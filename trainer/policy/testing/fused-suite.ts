/**
 * The fused native kernels must compute what the stock TF.js compositions compute — values and gradients — or the
 * trainer would learn something different depending on whether OpenBLAS was installed. Each check runs the same
 * thing twice on one backend: native kernels on (fused path), then off (stock path). The suite runs on wasm
 * (fused.test.ts) and on the cpu backend (fused-cpu.test.ts), where the same kernels work on the tensors' own
 * typed arrays — the path for models past the wasm heap's 4 GiB.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../../backend/select";
import { disableNativeKernels, tryEnableNativeKernels } from "../../backend/native/index";
import { loadBlasAddon } from "../../backend/native/addon";
import { DecoderLM } from "../model";
import type { ModelConfig } from "../config";
import { padBatch, tokenLogProbs } from "../logprobs";
import { fusedAdamW, fusedAdamWInPlace, fusedAttention, fusedOpsAvailable, fusedRope, fusedTokenLogProbs } from "../fused";
import { attendBatched } from "../attention";
import { FUSED } from "../../backend/native/fused-kernels";
import { generate } from "../sampling";
import { computeLogProbs } from "../logprobs";
import { AdamW, globalGradNorm } from "../optimizer";
import { Rng } from "../rng";
import { assertPrefixReuseExact } from "./prefix-reuse";

export function fusedKernelSuite(backend: "wasm" | "cpu"): void {
  const built = loadBlasAddon().addon !== null;
  /** Grouped-query heads (4 query heads over 2 kv heads) so the kv-head accumulation in attention is exercised. */
  const CONFIG: ModelConfig = {
    vocabSize: 64,
    hiddenSize: 32,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    intermediateSize: 48,
    maxPositions: 32,
    ropeTheta: 10000,
    rmsNormEps: 1e-5,
    tieEmbeddings: false,
    attentionBias: false,
  };

  before(async () => {
    if (built) await selectBackend({ ROLLOUT_LAB_BACKEND: backend });
  });
  after(async () => {
    if (built) await tryEnableNativeKernels(backend);
    await tf.setBackend("cpu");
  });

  /** Runs `f` on the fused path, then on the stock path (native kernels off), restoring them afterwards. */
  async function bothPaths<T>(f: () => T): Promise<{ fused: T; stock: T }> {
    const report = await tryEnableNativeKernels(backend);
    assert.ok(fusedOpsAvailable(), `fused kernels should be registered: ${report.reason}`);
    const fused = f();
    disableNativeKernels(backend);
    assert.equal(fusedOpsAvailable(), false);
    const stock = f();
    await tryEnableNativeKernels(backend);
    return { fused, stock };
  }

  function assertClose(a: ArrayLike<number>, b: ArrayLike<number>, what: string, tol = 1e-4): void {
    assert.equal(a.length, b.length, `${what}: lengths differ`);
    let scale = 1e-6;
    for (let i = 0; i < b.length; i++) scale = Math.max(scale, Math.abs(b[i]));
    for (let i = 0; i < a.length; i++) {
      assert.ok(Math.abs(a[i] - b[i]) <= tol * scale, `${what}[${i}]: fused ${a[i]} vs stock ${b[i]} (scale ${scale})`);
    }
  }

  const batch = padBatch([
    [3, 14, 15, 9, 26, 5, 35, 8, 9, 7, 9, 3, 2],
    [27, 18, 28, 18, 28, 45, 9, 0, 4, 52, 3],
    [1, 61, 8, 33, 9, 8, 8, 7, 4, 9],
  ]);

  // Tied embeddings: the head reads the embedding transposed in place on the fused path, through a copy on the stock one.
  for (const [label, config] of [
    ["", CONFIG],
    [", tied embeddings", { ...CONFIG, tieEmbeddings: true }],
    [", Qwen3 layout (q/k norms, head size 16 apart from hidden / heads)", { ...CONFIG, headDim: 16, qkNorm: true }],
  ] as const) {
    test(
      `${backend}: fused decoder = stock ops${label}: log-probs, entropies and the gradient of every weight`,
      { skip: !built },
      async () => {
        const model = new DecoderLM(config, { seed: 11, initStd: 0.2 });
        const vars = model.trainableVariables();
        const run = () =>
          tf.tidy(() => {
            const { value, grads } = tf.variableGrads(() => {
              const { logp, entropy } = tokenLogProbs(model, batch, true);
              // a weighted sum so each token's log-prob and entropy gets a different upstream gradient
              const w = tf.linspace(0.5, 1.5, batch.T).reshape([1, batch.T]);
              return tf.add(tf.sum(tf.mul(logp, w)), tf.mul(0.3, tf.sum(tf.mul(entropy as tf.Tensor, w)))) as tf.Scalar;
            }, vars);
            const lp = tokenLogProbs(model, batch, true);
            return {
              loss: value.dataSync()[0],
              logp: lp.logp.dataSync(),
              entropy: (lp.entropy as tf.Tensor).dataSync(),
              grads: Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, g.dataSync()])),
            };
          });
        const { fused, stock } = await bothPaths(run);
        assertClose([fused.loss], [stock.loss], "loss");
        assertClose(fused.logp, stock.logp, "log-probs");
        assertClose(fused.entropy, stock.entropy, "entropies");
        assert.equal(Object.keys(fused.grads).length, vars.length);
        for (const name of Object.keys(stock.grads)) assertClose(fused.grads[name], stock.grads[name], `d loss / d ${name}`, 2e-4);
        model.dispose();
      },
    );
  }

  for (const [label, config] of [
    ["Llama layout", CONFIG],
    ["Qwen2 layout (q/k/v biases, tied embeddings)", { ...CONFIG, attentionBias: true, tieEmbeddings: true }],
    ["Qwen3 layout (q/k norms, head size 16; decoded on the op-level path)", { ...CONFIG, headDim: 16, qkNorm: true }],
  ] as const) {
    test(
      `${backend}: fused path, ${label}: native KV-cache decoding of left-padded prompts equals full recomputation, no leaks`,
      { skip: !built },
      async () => {
        await tryEnableNativeKernels(backend);
        const model = new DecoderLM(config, { seed: 5, initStd: 0.2 });
        // biases start at zero; give them values so a kernel that dropped them would be caught
        for (const [name, v] of model.params) if (name.endsWith(".bias")) v.assign(tf.randomNormal(v.shape, 0, 0.5, "float32", 9));
        const prompts = [
          [10, 20, 30, 40, 50, 11, 12],
          [60, 7],
          [1, 2, 3],
        ];
        const before = tf.memory().numTensors;
        const samples = generate(model, prompts, { maxNewTokens: 14, temperature: 1, rng: new Rng(3) });
        assert.equal(tf.memory().numTensors, before, "sampling leaked tensors");
        const full = computeLogProbs(
          model,
          prompts.map((p, i) => [...p, ...samples[i].tokens]),
        );
        samples.forEach((s, i) => assertClose(s.logprobs, full[i].slice(prompts[i].length), `row ${i} sampled log-probs`, 1e-4));
        model.dispose();
      },
    );
  }

  test(`${backend}: fused AdamW with clipping and weight decay = the stock update, step after step`, { skip: !built }, async () => {
    const run = () => {
      const model = new DecoderLM(CONFIG, { seed: 2, initStd: 0.1 });
      const opt = new AdamW(model.trainableVariables(), { lr: 3e-3, weightDecay: 0.1, maxGradNorm: 0.5 });
      const norms: number[] = [];
      for (let step = 0; step < 3; step++) {
        const { grads, value } = tf.variableGrads(
          () => tf.neg(tf.mean(tokenLogProbs(model, batch).logp)) as tf.Scalar,
          model.trainableVariables(),
        );
        const norm = globalGradNorm(grads);
        norms.push(norm);
        opt.apply(grads, norm);
        tf.dispose([value, ...Object.values(grads)]);
      }
      const weights = [...model.params.values()].map((v) => v.dataSync());
      const moments = [...opt.moments.values()].map((m) => m.v.dataSync());
      opt.dispose();
      model.dispose();
      return { norms, weights, moments };
    };
    const { fused, stock } = await bothPaths(run);
    assertClose(fused.norms, stock.norms, "global gradient norms");
    fused.weights.forEach((w, i) => assertClose(w, stock.weights[i], `weights ${i} after 3 steps`, 2e-4));
    fused.moments.forEach((m, i) => assertClose(m, stock.moments[i], `second moments ${i}`, 5e-4));
  });

  test(`${backend}: the in-place AdamW kernel writes what the out-of-place one returns`, { skip: !built }, async () => {
    await tryEnableNativeKernels(backend);
    const rng = new Rng(11);
    // 2^18 + 3 values: large enough for the two-thread split, odd so the split is uneven
    const n = (1 << 18) + 3;
    const rand = (scale: number) => tf.tensor1d(Float32Array.from({ length: n }, () => (rng.next() - 0.5) * scale));
    const [p, m, g] = [rand(1), rand(0.01), rand(0.1)];
    const v = tf.tidy(() => tf.abs(rand(1e-4)));
    const hp = { lr: 1e-3, b1: 0.9, b2: 0.999, eps: 1e-8, wd: 0.01, bc1: 0.19, bc2: 0.003, clip: 0.7 };
    const [p2, m2, v2] = fusedAdamW(p, m, v, g, hp);
    const expected = [p2, m2, v2].map((t) => Array.from(t.dataSync()));
    assert.ok(fusedAdamWInPlace(p, m, v, g, hp), "sole owners of their buffers: updated in place");
    [p, m, v].forEach((t, i) => assertClose(t.dataSync(), expected[i], `${["param", "m", "v"][i]} in place`, 1e-6));
    const alias = p.clone();
    assert.equal(fusedAdamWInPlace(p, m, v, g, hp), false, "a buffer another tensor shares is not overwritten");
    tf.dispose([p, m, v, g, p2, m2, v2, alias]);
  });

  test(
    `${backend}: AdamW steps in place once the KL reference no longer shares the weights, and the reference keeps them`,
    { skip: !built },
    async () => {
      await tryEnableNativeKernels(backend);
      const model = new DecoderLM(CONFIG, { seed: 5, initStd: 0.1 });
      const reference = model.frozenCopy();
      const initial = [...reference.params.values()].map((w) => Array.from(w.dataSync()));
      const opt = new AdamW(model.trainableVariables(), { lr: 1e-2, weightDecay: 0.1 });
      const step = () => {
        const { grads, value } = tf.variableGrads(
          () => tf.neg(tf.mean(tokenLogProbs(model, batch).logp)) as tf.Scalar,
          model.trainableVariables(),
        );
        opt.apply(grads, globalGradNorm(grads));
        tf.dispose([value, ...Object.values(grads)]);
      };
      const buffers = () => model.trainableVariables().map((w) => w.dataId);
      step();
      const afterFirst = buffers();
      const firstWeights = model.trainableVariables().map((w) => Array.from(w.dataSync()));
      step();
      assert.deepEqual(buffers(), afterFirst, "the second step wrote into the weights' own buffers");
      const moved = model.trainableVariables().filter((w, i) => w.dataSync().some((x, j) => x !== firstWeights[i][j]));
      assert.equal(moved.length, afterFirst.length, "every weight changed in the second step");
      [...reference.params.values()].forEach((w, i) => assertClose(w.dataSync(), initial[i], `reference weight ${i}`, 0));
      opt.dispose();
      reference.dispose();
      model.dispose();
    },
  );

  test(
    `${backend}: recomputing activations in the backward gives the same gradients, with and without LoRA, on both paths`,
    { skip: !built },
    async () => {
      const gradsOf = (lora: boolean, recompute: boolean) => {
        const before = tf.memory().numTensors;
        const model = new DecoderLM(CONFIG, { seed: 4, initStd: 0.1 });
        if (lora) model.enableLora({ rank: 4, alpha: 8, targets: ["q_proj", "v_proj", "down_proj"] }, 1);
        model.recomputeActivations = recompute;
        const { grads, value } = tf.variableGrads(
          () => tf.neg(tf.mean(tokenLogProbs(model, batch).logp)) as tf.Scalar,
          model.trainableVariables(),
        );
        const out = {
          loss: value.dataSync()[0],
          grads: Object.keys(grads)
            .sort()
            .map((k) => grads[k].dataSync()),
        };
        tf.dispose([value, ...Object.values(grads)]);
        model.dispose();
        assert.equal(tf.memory().numTensors, before, `lora=${lora} recompute=${recompute}: no tensor left behind`);
        return out;
      };
      for (const lora of [false, true]) {
        const { fused, stock } = await bothPaths(() => ({ kept: gradsOf(lora, false), recomputed: gradsOf(lora, true) }));
        for (const [path, r] of [
          ["fused", fused],
          ["stock", stock],
        ] as const) {
          assert.ok(Math.abs(r.kept.loss - r.recomputed.loss) < 1e-6, `${path} lora=${lora}: loss`);
          assert.equal(r.recomputed.grads.length, r.kept.grads.length);
          r.kept.grads.forEach((g, i) => assertClose(r.recomputed.grads[i], g, `${path} lora=${lora}: gradient ${i}`, 1e-5));
        }
      }
    },
  );

  test(
    `${backend}: 8-bit AdamW moments train as fp32 moments do, at a quarter of the memory; decoded moments round-trip`,
    { skip: !built },
    async () => {
      await tryEnableNativeKernels(backend);
      const run = (stateBits: 32 | 8) => {
        const model = new DecoderLM(CONFIG, { seed: 2, initStd: 0.1 });
        const before = tf.memory().numBytes;
        const opt = new AdamW(model.trainableVariables(), { lr: 3e-3, weightDecay: 0.1, maxGradNorm: 1, stateBits });
        const stateBytes = tf.memory().numBytes - before;
        const losses: number[] = [];
        for (let step = 0; step < 40; step++) {
          const { grads, value } = tf.variableGrads(
            () => tf.neg(tf.mean(tokenLogProbs(model, batch).logp)) as tf.Scalar,
            model.trainableVariables(),
          );
          losses.push(value.dataSync()[0]);
          opt.apply(grads, globalGradNorm(grads));
          tf.dispose([value, ...Object.values(grads)]);
        }
        const state = new Map<string, Float32Array>();
        opt.forEachStateTensor(
          (v) => v.name,
          (key, t) => state.set(key, t.dataSync() as Float32Array),
        );
        const weights = [...model.params.values()].map((v) => Array.from(v.dataSync()));
        return { model, opt, losses, stateBytes, state, weights };
      };
      const fp32 = run(32);
      const q8 = run(8);
      assert.equal(q8.opt.stateBits, 8);
      const params = fp32.model.trainableVariables().reduce((n, v) => n + v.size, 0);
      assert.equal(fp32.stateBytes, 8 * params);
      assert.ok(q8.stateBytes < 2.2 * params, `8-bit state ${q8.stateBytes} B for ${params} parameters`);
      // the same descent: loss falls as far, and the weights stay close to the fp32 run's
      const last = (xs: number[]) => xs.slice(-5).reduce((a, b) => a + b, 0) / 5;
      assert.ok(last(q8.losses) < 0.5 * q8.losses[0], `8-bit loss ${q8.losses[0]} -> ${last(q8.losses)}`);
      assert.ok(
        Math.abs(last(q8.losses) - last(fp32.losses)) < 0.1 * last(fp32.losses),
        `8-bit ${last(q8.losses)} vs fp32 ${last(fp32.losses)}`,
      );
      // flattened once: flattening inside the reduce made this check quadratic (tens of CPU seconds on ~20k weights)
      const fp32Weights = fp32.weights.flat();
      const drift = q8.weights.flat().reduce((s, w, i) => s + (w - fp32Weights[i]) ** 2, 0);
      const moved = fp32Weights.reduce((s, w) => s + w * w, 0);
      assert.ok(Math.sqrt(drift / moved) < 0.05, `weights differ by ${Math.sqrt(drift / moved)} of their norm`);
      // a checkpoint's fp32 moments load back into 8 bits and decode to what was saved (within the codes' precision)
      const again = new AdamW(q8.model.trainableVariables(), { lr: 3e-3, stateBits: 8 });
      again.loadStateTensors(40, new Map([...q8.state].map(([k, v]) => [k, tf.tensor(v)])), (v) => v.name);
      again.forEachStateTensor(
        (v) => v.name,
        (key, t) => {
          const saved = q8.state.get(key)!;
          const got = t.dataSync();
          const scale = Math.max(...saved.map(Math.abs));
          saved.forEach((x, i) => assert.ok(Math.abs(got[i] - x) <= 0.02 * scale + 1e-12, `${key}[${i}]: ${got[i]} vs ${x}`));
          if (key.endsWith("exp_avg_sq"))
            saved.forEach((x, i) => assert.ok(x === 0 || got[i] > 0, `${key}[${i}]: a positive v decodes to 0`));
        },
      );
      for (const r of [fp32, q8]) {
        r.opt.dispose();
        r.model.dispose();
      }
      again.dispose();
    },
  );

  test(
    `${backend}: fused attention = stock attention at a training shape large enough to run on several threads`,
    { skip: !built },
    async () => {
      await tryEnableNativeKernels(backend);
      // B*H*T*Tk*hd well above the kernel's threading threshold (2^21), with grouped-query heads
      const s = { B: 2, T: 128, heads: 4, kvHeads: 2, headDim: 32 };
      const q = tf.randomNormal([s.B * s.T, s.heads * s.headDim], 0, 1, "float32", 1) as tf.Tensor2D;
      const k = tf.randomNormal([s.B * s.T, s.kvHeads * s.headDim], 0, 1, "float32", 2) as tf.Tensor2D;
      const v = tf.randomNormal([s.B * s.T, s.kvHeads * s.headDim], 0, 1, "float32", 3) as tf.Tensor2D;
      const w = tf.randomNormal([s.B * s.T, s.heads * s.headDim], 0, 1, "float32", 4);
      const gradsOf = (f: (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) => tf.Tensor) =>
        tf
          .grads((a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) => tf.sum(tf.mul(f(a, b, c), w)))([q, k, v])
          .map((g) => g.dataSync());
      const fused = gradsOf((a, b, c) => fusedAttention(a as tf.Tensor2D, b as tf.Tensor2D, c as tf.Tensor2D, { ...s, past: 0 }));
      const stock = gradsOf((a, b, c) => attendBatched(a as tf.Tensor2D, b as tf.Tensor2D, c as tf.Tensor2D, s).out);
      ["dq", "dk", "dv"].forEach((name, i) => assertClose(fused[i], stock[i], name, 2e-4));
      const out = fusedAttention(q, k, v, { ...s, past: 0 }).dataSync();
      assertClose(out, attendBatched(q, k, v, s).out.dataSync(), "attention output");
      tf.dispose([q, k, v, w]);
    },
  );

  test(
    `${backend}: prefix caching on the native decoder and on the stock path samples exactly what a full prefill samples`,
    { skip: !built },
    async () => {
      const m = new DecoderLM(CONFIG, { seed: 5, initStd: 0.2 });
      await bothPaths(() => assertPrefixReuseExact(m));
      m.dispose();
    },
  );

  test(`${backend}: fused kernels reject bad input with a clear error, leaving nothing allocated`, { skip: !built }, async () => {
    await tryEnableNativeKernels(backend);
    const dataIds = () => tf.engine().backend.numDataIds();
    const before = dataIds();
    const logits = tf.randomNormal([2, 8]) as tf.Tensor2D;
    assert.throws(() => fusedTokenLogProbs(logits, new Int32Array([1, 8])), /token id outside the vocabulary of 8/);
    const x = tf.ones([3, 8]) as tf.Tensor2D;
    const tables = { cos: tf.ones([4, 4]) as tf.Tensor2D, sin: tf.zeros([4, 4]) as tf.Tensor2D };
    const pos = tf.tensor1d([0, 1, 4], "int32");
    assert.throws(() => fusedRope(x, 2, pos, tables.cos, tables.sin), /rotary position outside the table of 4 positions/);
    // attributes that claim more than the tensors hold are caught before the addon reads the heap
    const q = tf.ones([2, 8]);
    assert.throws(
      () =>
        tf.engine().runKernel(FUSED.attention, { q, k: q, v: q }, {
          B: 2,
          T: 2,
          Tk: 2,
          heads: 2,
          kvHeads: 2,
          headDim: 4,
          past: 0,
          scale: 1,
        } as never),
      /RolloutLabAttention: input q is float32 \[2,8\], expected float32 with 32 elements/,
    );
    // grouped-query heads must divide: refused by the addon itself
    const [q3, k2] = [tf.ones([1, 12]), tf.ones([1, 8])];
    assert.throws(
      () =>
        tf.engine().runKernel(FUSED.attention, { q: q3, k: k2, v: k2 }, {
          B: 1,
          T: 1,
          Tk: 1,
          heads: 3,
          kvHeads: 2,
          headDim: 4,
          past: 0,
          scale: 1,
        } as never),
      /heads must be a multiple of kv heads/,
    );
    tf.dispose([logits, x, tables.cos, tables.sin, pos, q, q3, k2]);
    assert.equal(dataIds(), before, `rejected calls left buffers on the ${backend} backend`);
    const model = new DecoderLM(CONFIG, { seed: 1 });
    assert.throws(() => model.forward(new Int32Array(33).fill(1), 1, 33), /exceeds maxPositions 32/);
    model.dispose();
  });
}
