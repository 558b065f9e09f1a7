import { test } from "node:test";
import assert from "node:assert/strict";
import { BUILTIN_MODEL_DIMS, countParameters } from "./model-sizes";
import { estimateStepMemory, stepMemoryLimitBytes } from "./step-memory";

const qwen05 = {
  hiddenSize: 896,
  numLayers: 24,
  numHeads: 14,
  numKvHeads: 2,
  intermediateSize: 4864,
  maxPositions: 128,
  tieEmbeddings: true,
  attentionBias: true,
};

test("parameter counts match the published sizes of real architectures", () => {
  // Qwen2.5-0.5B: 494,032,768 parameters (its model card's 0.49B).
  assert.equal(countParameters(qwen05, 151_936), 494_032_768);
  // The bench reference decoder (d 128, 4 layers, MLP 512, byte vocabulary): 1.1M, not the ~0.85M once documented.
  assert.equal(countParameters(BUILTIN_MODEL_DIMS.small, 259), 1_116_032);
});

test("LoRA trains a sliver of the parameters; the KL reference costs a copy of the weights, or of the adapters with LoRA", () => {
  const base = { dims: qwen05, vocabSize: 151_936, reference: false, microBatch: 4, samplingBatch: 4 };
  const full = estimateStepMemory(base);
  const lora = estimateStepMemory({ ...base, loraRank: 16 });
  assert.ok(lora.trainableParameters < full.parameters / 100);
  assert.ok(lora.bytes.optimizer < full.bytes.optimizer / 100);
  assert.equal(estimateStepMemory({ ...base, reference: true }).bytes.reference, 4 * full.parameters);
  assert.equal(
    estimateStepMemory({ ...base, loraRank: 16, reference: true }).bytes.reference,
    4 * lora.trainableParameters,
    "a LoRA reference shares the base weights",
  );
  assert.ok(full.bytes.total > 8 * 2 ** 30, "a full-parameter 0.5B step does not fit the 4 GiB wasm heap");
});

test("8-bit AdamW moments cost a quarter of fp32's (2 bytes per trained parameter and a scale per 256)", () => {
  const base = { dims: qwen05, vocabSize: 151_936, reference: false, microBatch: 4, samplingBatch: 4 };
  const fp32 = estimateStepMemory(base);
  const q8 = estimateStepMemory({ ...base, optimizerState: "8bit" });
  assert.equal(fp32.bytes.optimizer, 8 * fp32.trainableParameters);
  assert.equal(q8.bytes.optimizer, 2 * q8.trainableParameters + 8 * Math.ceil(q8.trainableParameters / 256));
  assert.ok(fp32.bytes.total - q8.bytes.total > 2.7 * 2 ** 30, "2.76 GiB less at 0.5B");
});

test("recomputing activations keeps each layer's input and one layer's activations instead of every layer's", () => {
  const base = { dims: { ...qwen05, maxPositions: 1024 }, vocabSize: 151_936, reference: false, microBatch: 4, samplingBatch: 4 };
  const kept = estimateStepMemory(base);
  const recomputed = estimateStepMemory({ ...base, recomputeActivations: true });
  assert.ok(recomputed.bytes.activations < kept.bytes.activations / 2, `${recomputed.bytes.activations} vs ${kept.bytes.activations}`);
  assert.equal(recomputed.bytes.weights, kept.bytes.weights);
});

test("bf16 frozen weights halve a LoRA run's base and a full-parameter run's KL reference, and nothing trained", () => {
  const base = { dims: qwen05, vocabSize: 151_936, reference: true, microBatch: 4, samplingBatch: 4 };
  const full32 = estimateStepMemory(base);
  const full16 = estimateStepMemory({ ...base, frozenWeights: "bf16" });
  assert.equal(full16.bytes.reference, 2 * full32.parameters, "the reference in 2 bytes a parameter");
  assert.equal(full16.bytes.weights, full32.bytes.weights, "the trained policy stays fp32");
  const lora32 = estimateStepMemory({ ...base, loraRank: 16 });
  const lora16 = estimateStepMemory({ ...base, loraRank: 16, frozenWeights: "bf16" });
  assert.equal(lora16.bytes.weights, 2 * lora32.parameters + 4 * lora32.trainableParameters, "the base in bf16, the adapters fp32");
  assert.equal(lora16.bytes.reference, lora32.bytes.reference, "a LoRA reference shares the base either way");
});

test("the budget comes from ROLLOUT_LAB_MAX_STEP_MEMORY_GB, three quarters of the RAM by default", () => {
  assert.equal(stepMemoryLimitBytes({}, 24 * 2 ** 30), 18 * 2 ** 30);
  assert.equal(stepMemoryLimitBytes({}, 16 * 2 ** 30), 12 * 2 ** 30);
  assert.equal(stepMemoryLimitBytes({ ROLLOUT_LAB_MAX_STEP_MEMORY_GB: "64" }, 16 * 2 ** 30), 64 * 2 ** 30);
});
