/**
 * ModelConfig <-> transformers config.json (LlamaConfig / Qwen2Config / Qwen3Config / MistralConfig field names).
 * Only decoder architectures whose weights map 1:1 onto policy/params.ts are accepted; anything else fails with the
 * model_type and what is supported.
 */
import { headDim, validateModelConfig, type ModelConfig } from "../policy/config";
import type { Llama3RopeScaling } from "../policy/ops";

export const SUPPORTED_MODEL_TYPES = ["llama", "qwen2", "qwen3", "mistral"] as const;

export class HfCheckpointError extends Error {
  readonly code = "HF_CHECKPOINT_INVALID";
  constructor(message: string) {
    super(message);
    this.name = "HfCheckpointError";
  }
}

type HfConfig = Record<string, unknown>;

function num(cfg: HfConfig, key: string, fallback?: number): number {
  const v = cfg[key];
  if (typeof v === "number") return v;
  if (fallback !== undefined) return fallback;
  throw new HfCheckpointError(`config.json has no numeric "${key}"`);
}

export function modelConfigFromHf(cfg: HfConfig): ModelConfig {
  const type = String(cfg.model_type ?? "");
  if (!(SUPPORTED_MODEL_TYPES as readonly string[]).includes(type)) {
    throw new HfCheckpointError(
      `config.json model_type "${type}" is not supported; supported decoder architectures: ${SUPPORTED_MODEL_TYPES.join(", ")}.`,
    );
  }
  const unimplemented = unimplementedForwardKey(cfg);
  if (unimplemented) throw new HfCheckpointError(`config.json ${unimplemented}`);
  // transformers ≥ 4.56 writes rotary settings as rope_parameters {rope_type, rope_theta}; older configs as
  // rope_scaling (null for plain rotary) and a top-level rope_theta
  const params = cfg.rope_parameters as { rope_type?: string; rope_theta?: number } | null | undefined;
  const ropeScaling = rotaryScalingOf((cfg.rope_scaling ?? params) as Record<string, unknown> | null | undefined);
  const heads = num(cfg, "num_attention_heads");
  const hidden = num(cfg, "hidden_size");
  // head_dim: Qwen3 and Mistral set it (Qwen3-0.6B: 128 with 1024 / 16); Llama 3.2 sets it equal to hidden / heads
  const head = typeof cfg.head_dim === "number" && cfg.head_dim !== hidden / heads ? cfg.head_dim : undefined;
  const window = slidingWindowOf(type, cfg);
  return validateModelConfig({
    vocabSize: num(cfg, "vocab_size"),
    hiddenSize: hidden,
    numLayers: num(cfg, "num_hidden_layers"),
    numHeads: heads,
    numKvHeads: num(cfg, "num_key_value_heads", heads),
    intermediateSize: num(cfg, "intermediate_size"),
    maxPositions: num(cfg, "max_position_embeddings", 2048),
    ropeTheta:
      typeof cfg.rope_theta !== "number" && typeof params?.rope_theta === "number" ? params.rope_theta : num(cfg, "rope_theta", 10000),
    rmsNormEps: num(cfg, "rms_norm_eps", 1e-6),
    tieEmbeddings: cfg.tie_word_embeddings === true,
    // Qwen2 always has q/k/v biases; Llama and Qwen3 expose it as attention_bias
    attentionBias: type === "qwen2" ? true : cfg.attention_bias === true,
    ...(head !== undefined && { headDim: head }),
    ...(type === "qwen3" && { qkNorm: true }),
    ...(window !== undefined && { slidingWindow: window }),
    ...(ropeScaling && { ropeScaling }),
  });
}

/**
 * Keys of config.json that change the forward pass in transformers but that the decoder does not implement. Each was
 * once read past silently (a `gelu_pytorch_tanh` model computed as SiLU trains a different function and "succeeds"), so
 * any of them set to a value other than its no-op refuses the folder, naming the key. Returns the sentence, or null.
 */
export function unimplementedForwardKey(cfg: HfConfig): string | null {
  const act = cfg.hidden_act ?? cfg.hidden_activation;
  if (act !== undefined && act !== null && act !== "silu" && act !== "swish") {
    const key = cfg.hidden_act !== undefined ? "hidden_act" : "hidden_activation";
    return `${key} is ${JSON.stringify(act)}; the decoder's MLP computes SiLU (SwiGLU) only, so this model would train as a different function.`;
  }
  if (cfg.mlp_bias === true) return "mlp_bias is true; the decoder's MLP has no biases.";
  if (typeof cfg.attention_dropout === "number" && cfg.attention_dropout !== 0)
    return `attention_dropout is ${cfg.attention_dropout}; the decoder applies no dropout (set it to 0.0 to train without).`;
  if (typeof cfg.pretraining_tp === "number" && cfg.pretraining_tp !== 1)
    return `pretraining_tp is ${cfg.pretraining_tp}; only 1 (one unsplit projection) is implemented.`;
  if (cfg.quantization_config !== undefined && cfg.quantization_config !== null)
    return "has a quantization_config; quantized weights (GPTQ, AWQ, bitsandbytes, …) are not supported: use the unquantized model.";
  if (typeof cfg.partial_rotary_factor === "number" && cfg.partial_rotary_factor !== 1)
    return `partial_rotary_factor is ${cfg.partial_rotary_factor}; rotary embeddings cover the whole head only.`;
  for (const key of ["final_logit_softcapping", "attn_logit_softcapping"]) {
    if (typeof cfg[key] === "number") return `${key} is ${cfg[key]}; the decoder does not cap logits.`;
  }
  for (const key of ["logits_scaling", "embedding_multiplier", "residual_multiplier", "attention_multiplier"]) {
    if (typeof cfg[key] === "number" && cfg[key] !== 1) return `${key} is ${cfg[key]}; the decoder does not scale by it.`;
  }
  const layerTypes = cfg.layer_types;
  if (Array.isArray(layerTypes) && cfg.use_sliding_window !== true && layerTypes.some((t) => t !== "full_attention"))
    return `layer_types has ${JSON.stringify(layerTypes.find((t) => t !== "full_attention"))} layers; only full attention is implemented.`;
  return null;
}

/** Plain rotary (no scaling entry, or rope_type "default"), or Llama 3.1's "llama3" scaling; anything else is refused. */
function rotaryScalingOf(rope: Record<string, unknown> | null | undefined): Llama3RopeScaling | undefined {
  const type = rope ? (rope.rope_type ?? rope.type ?? "default") : "default";
  if (type === "default") return undefined;
  const keys = ["factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"] as const;
  if (type !== "llama3" || !keys.every((k) => typeof rope?.[k] === "number")) {
    throw new HfCheckpointError(`rotary scaling ${JSON.stringify(rope)} is not supported (plain rotary and Llama 3.1's "llama3" only).`);
  }
  const r = rope as Record<(typeof keys)[number], number>;
  return {
    factor: r.factor,
    lowFreqFactor: r.low_freq_factor,
    highFreqFactor: r.high_freq_factor,
    originalMaxPositions: r.original_max_position_embeddings,
  };
}

/**
 * The attention window the model uses, if any: Mistral's `sliding_window` (null for v0.2 on), Qwen2's / Qwen3's only
 * with use_sliding_window (and then on the layers from max_window_layers on; one window stands for all: the model is
 * only built at a context the window covers, where every layer attends fully).
 */
function slidingWindowOf(type: string, cfg: HfConfig): number | undefined {
  const window = cfg.sliding_window;
  if (typeof window !== "number") return undefined;
  if (type === "mistral") return window;
  if ((type === "qwen2" || type === "qwen3") && cfg.use_sliding_window === true) return window;
  return undefined;
}

/** config.json for a ModelConfig: Qwen3 with q/k norms, Qwen2 with q/k/v biases, else Llama. */
export function hfConfigFromModel(c: ModelConfig, extra: { bosTokenId?: number; eosTokenId?: number } = {}): HfConfig {
  const qwen3 = c.qkNorm === true;
  const qwen = c.attentionBias && !qwen3;
  return {
    architectures: [qwen3 ? "Qwen3ForCausalLM" : qwen ? "Qwen2ForCausalLM" : "LlamaForCausalLM"],
    model_type: qwen3 ? "qwen3" : qwen ? "qwen2" : "llama",
    vocab_size: c.vocabSize,
    hidden_size: c.hiddenSize,
    num_hidden_layers: c.numLayers,
    num_attention_heads: c.numHeads,
    num_key_value_heads: c.numKvHeads,
    intermediate_size: c.intermediateSize,
    max_position_embeddings: c.maxPositions,
    rope_theta: c.ropeTheta,
    rms_norm_eps: c.rmsNormEps,
    tie_word_embeddings: c.tieEmbeddings,
    ...(qwen ? {} : { attention_bias: c.attentionBias, mlp_bias: false }),
    ...(c.headDim !== undefined || qwen3 ? { head_dim: headDim(c) } : {}),
    ...(c.ropeScaling
      ? {
          rope_scaling: {
            rope_type: "llama3",
            factor: c.ropeScaling.factor,
            low_freq_factor: c.ropeScaling.lowFreqFactor,
            high_freq_factor: c.ropeScaling.highFreqFactor,
            original_max_position_embeddings: c.ropeScaling.originalMaxPositions,
          },
        }
      : {}),
    hidden_act: "silu",
    torch_dtype: "float32",
    bos_token_id: extra.bosTokenId ?? null,
    eos_token_id: extra.eosTokenId ?? null,
  };
}
