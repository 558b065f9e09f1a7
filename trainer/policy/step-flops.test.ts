import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { DecoderLM } from "./model";
import type { ModelConfig } from "./config";
import { padBatch, tokenLogProbs } from "./logprobs";
import { Rng } from "./rng";
import { stepProductFlops, type StepShape } from "./step-flops";

// Stock TF.js kernels: every product, attention's included, is a BatchMatMul the profiler sees with its shapes.
await tf.setBackend("cpu");

const CONFIG: ModelConfig = {
  vocabSize: 97,
  hiddenSize: 32,
  numLayers: 2,
  numHeads: 4,
  numKvHeads: 2, // grouped-query: k and v narrower than q
  intermediateSize: 48,
  maxPositions: 16,
  ropeTheta: 10000,
  rmsNormEps: 1e-5,
  tieEmbeddings: true,
  attentionBias: false,
};

/** GFLOP of every matrix product one real training step runs, read off the kernels it dispatched. */
async function measuredProductGflop(shape: StepShape): Promise<number> {
  const model = new DecoderLM(shape.config, { seed: 1 });
  if (shape.loraRank)
    model.enableLora({ rank: shape.loraRank, alpha: 2 * shape.loraRank, targets: ["q_proj", "k_proj", "v_proj", "o_proj"] });
  model.recomputeActivations = shape.recompute === true;
  const rng = new Rng(3);
  const batch = padBatch(
    Array.from({ length: shape.batch }, () => Array.from({ length: shape.context }, () => rng.int(shape.config.vocabSize))),
  );
  const info = await tf.profile(() => {
    const { grads, value } = tf.variableGrads(
      () => tf.neg(tf.mean(tokenLogProbs(model, batch).logp)) as tf.Scalar,
      model.trainableVariables(),
    );
    tf.dispose([value, ...Object.values(grads)]);
  });
  const hd = shape.config.hiddenSize / shape.config.numHeads;
  const isRotation = (s: number[]) => s.length === 2 && s[0] === hd && s[1] === hd;
  let flops = 0;
  for (const k of info.kernels) {
    if (k.name !== "BatchMatMul" && k.name !== "_FusedMatMul") continue;
    const [a, b] = k.inputShapes;
    const out = k.outputShapes[0];
    // The stock path rotates q and k (RoPE) by a [headDim, headDim] matrix product; the fused kernels rotate in
    // place and no other implementation multiplies there: not the step's arithmetic.
    if (isRotation(b) || isRotation(out)) continue;
    const M = out[out.length - 2];
    const innerPair = [a[a.length - 2], a[a.length - 1]];
    const K = innerPair[0] === M ? innerPair[1] : innerPair[0];
    flops += 2 * out.reduce((p, x) => p * x, 1) * K;
  }
  tf.dispose(model.trainableVariables());
  return flops / 1e9;
}

for (const [name, shape] of [
  // (positions = context - 1 never equal to the head dimension 8: the rotation products are told apart by shape)
  ["full training, tied head, grouped-query attention", { config: CONFIG, batch: 3, context: 11 }],
  ["an untied head", { config: { ...CONFIG, tieEmbeddings: false }, batch: 2, context: 7 }],
  ["LoRA on q, k, v, o (base and embedding frozen)", { config: CONFIG, batch: 2, context: 11, loraRank: 4 }],
  ["activation recomputation", { config: CONFIG, batch: 2, context: 11, recompute: true }],
] as [string, StepShape][]) {
  test(`the counted products of a step equal what a real step multiplies: ${name}`, async () => {
    const counted = stepProductFlops(shape).gflop;
    const measured = await measuredProductGflop(shape);
    assert.ok(Math.abs(counted - measured) <= 1e-9 * Math.max(1, measured), `counted ${counted} GFLOP, the step ran ${measured}`);
  });
}
