import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { DecoderLM } from "../policy/model";
import { countParameters, ModelConfigError } from "../policy/config";
import { hfConfigFromModel, modelConfigFromHf } from "./hf-config";

await tf.setBackend("cpu");

/** Qwen3-0.6B's config.json as published (fields the trainer reads). */
const QWEN3_06B = {
  architectures: ["Qwen3ForCausalLM"],
  model_type: "qwen3",
  vocab_size: 151936,
  hidden_size: 1024,
  intermediate_size: 3072,
  num_hidden_layers: 28,
  num_attention_heads: 16,
  num_key_value_heads: 8,
  head_dim: 128,
  max_position_embeddings: 40960,
  rope_theta: 1000000,
  rope_scaling: null,
  rms_norm_eps: 1e-6,
  attention_bias: false,
  tie_word_embeddings: true,
  use_sliding_window: false,
  sliding_window: null,
};

test("Qwen3's config: q/k norms, its own head size, no biases; 596M parameters as transformers counts them", () => {
  const c = modelConfigFromHf(QWEN3_06B);
  assert.equal(c.qkNorm, true);
  assert.equal(c.headDim, 128);
  assert.equal(c.attentionBias, false);
  assert.equal(c.slidingWindow, undefined);
  // Qwen3-0.6B's num_parameters(): 596,049,920 (embedding tied)
  assert.equal(countParameters(c), 596_049_920);
  const back = hfConfigFromModel(c);
  assert.equal(back.model_type, "qwen3");
  assert.equal(back.head_dim, 128);
  // newer transformers write rope_parameters instead of rope_theta / rope_scaling
  const { rope_theta: _, rope_scaling: __, ...rest } = QWEN3_06B;
  assert.equal(modelConfigFromHf({ ...rest, rope_parameters: { rope_type: "default", rope_theta: 5e5 } }).ropeTheta, 5e5);
  assert.throws(
    () => modelConfigFromHf({ ...rest, rope_parameters: { rope_type: "yarn", rope_theta: 5e5 } }),
    /not supported \(plain rotary and Llama 3\.1's "llama3" only\)/,
  );
});

test("a sliding-window model runs only at a context its window covers, and says how to get there", () => {
  const mistral = modelConfigFromHf({
    model_type: "mistral",
    vocab_size: 64,
    hidden_size: 32,
    intermediate_size: 48,
    num_hidden_layers: 1,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    max_position_embeddings: 256,
    sliding_window: 64,
  });
  assert.equal(mistral.slidingWindow, 64);
  assert.throws(
    () => new DecoderLM({ ...mistral, maxPositions: 128 }),
    (e: unknown) => e instanceof ModelConfigError && /sliding window of 64 tokens.*policy\.contextLength to at most 64/.test(e.message),
  );
  new DecoderLM({ ...mistral, maxPositions: 64 }).dispose();
  // Qwen2 declares a window it does not use unless use_sliding_window is set
  const qwen2 = { ...QWEN3_06B, model_type: "qwen2", head_dim: undefined, sliding_window: 32768 };
  assert.equal(modelConfigFromHf(qwen2).slidingWindow, undefined);
  assert.equal(modelConfigFromHf({ ...qwen2, use_sliding_window: true }).slidingWindow, 32768);
});

test("config keys that change the forward pass but are not implemented refuse the folder, naming the key", () => {
  // Gemma-style activation on a Llama/Qwen shape: computed as SiLU before, a different function trained silently
  assert.throws(
    () => modelConfigFromHf({ ...QWEN3_06B, hidden_act: "gelu_pytorch_tanh" }),
    /config\.json hidden_act is "gelu_pytorch_tanh".*SiLU/,
  );
  assert.throws(() => modelConfigFromHf({ ...QWEN3_06B, model_type: "llama", mlp_bias: true }), /mlp_bias is true/);
  assert.throws(() => modelConfigFromHf({ ...QWEN3_06B, attention_dropout: 0.1 }), /attention_dropout is 0\.1/);
  assert.throws(() => modelConfigFromHf({ ...QWEN3_06B, quantization_config: { quant_method: "gptq" } }), /quantization_config/);
  assert.throws(() => modelConfigFromHf({ ...QWEN3_06B, final_logit_softcapping: 30 }), /final_logit_softcapping is 30/);
  assert.throws(() => modelConfigFromHf({ ...QWEN3_06B, pretraining_tp: 2 }), /pretraining_tp is 2/);
  assert.throws(
    () => modelConfigFromHf({ ...QWEN3_06B, layer_types: ["full_attention", "sliding_attention"] }),
    /layer_types has "sliding_attention"/,
  );
  // their no-op values are what published configs hold, and load
  const published = { hidden_act: "silu", mlp_bias: false, attention_dropout: 0.0, pretraining_tp: 1, layer_types: ["full_attention"] };
  assert.equal(modelConfigFromHf({ ...QWEN3_06B, ...published }).qkNorm, true);
});
