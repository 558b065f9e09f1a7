/**
 * The parameter list of the decoder under transformers' LlamaForCausalLM / Qwen2ForCausalLM / Qwen3ForCausalLM names
 * (Qwen3 adds self_attn.q_norm / k_norm, one weight per head dimension), so a checkpoint
 * maps 1:1 onto `model.safetensors`.
 *
 * Layout note: nn.Linear stores weight as [out, in] and computes x @ W^T. We keep projection weights as [in, out]
 * inside TF.js because wasm's matMul is only fast untransposed (measured with bench:matmul); checkpoint/ transposes on save and load,
 * so files always hold the transformers layout. `transposed: true` marks those tensors.
 */
import { headDim, type ModelConfig } from "./config";

export interface ParamSpec {
  /** transformers state_dict key. */
  name: string;
  /** Shape as held in TF.js. */
  shape: number[];
  /** Shape in a transformers checkpoint. */
  hfShape: number[];
  transposed: boolean;
  init: "normal" | "ones" | "zeros";
}

function linear(name: string, inDim: number, outDim: number): ParamSpec {
  return { name, shape: [inDim, outDim], hfShape: [outDim, inDim], transposed: true, init: "normal" };
}
function vector(name: string, n: number, init: "ones" | "zeros"): ParamSpec {
  return { name, shape: [n], hfShape: [n], transposed: false, init };
}

export function layerPrefix(i: number): string {
  return `model.layers.${i}`;
}

export function paramSpecs(c: ModelConfig): ParamSpec[] {
  const d = c.hiddenSize;
  const hd = headDim(c);
  const q = c.numHeads * hd;
  const kv = c.numKvHeads * hd;
  const specs: ParamSpec[] = [
    { name: "model.embed_tokens.weight", shape: [c.vocabSize, d], hfShape: [c.vocabSize, d], transposed: false, init: "normal" },
  ];
  for (let i = 0; i < c.numLayers; i++) {
    const p = layerPrefix(i);
    specs.push(vector(`${p}.input_layernorm.weight`, d, "ones"));
    specs.push(linear(`${p}.self_attn.q_proj.weight`, d, q));
    specs.push(linear(`${p}.self_attn.k_proj.weight`, d, kv));
    specs.push(linear(`${p}.self_attn.v_proj.weight`, d, kv));
    if (c.attentionBias) {
      specs.push(vector(`${p}.self_attn.q_proj.bias`, q, "zeros"));
      specs.push(vector(`${p}.self_attn.k_proj.bias`, kv, "zeros"));
      specs.push(vector(`${p}.self_attn.v_proj.bias`, kv, "zeros"));
    }
    if (c.qkNorm) {
      specs.push(vector(`${p}.self_attn.q_norm.weight`, hd, "ones"));
      specs.push(vector(`${p}.self_attn.k_norm.weight`, hd, "ones"));
    }
    specs.push(linear(`${p}.self_attn.o_proj.weight`, q, d));
    specs.push(vector(`${p}.post_attention_layernorm.weight`, d, "ones"));
    specs.push(linear(`${p}.mlp.gate_proj.weight`, d, c.intermediateSize));
    specs.push(linear(`${p}.mlp.up_proj.weight`, d, c.intermediateSize));
    specs.push(linear(`${p}.mlp.down_proj.weight`, c.intermediateSize, d));
  }
  specs.push(vector("model.norm.weight", d, "ones"));
  if (!c.tieEmbeddings) specs.push(linear("lm_head.weight", d, c.vocabSize));
  return specs;
}

/** Projection names LoRA may adapt (PEFT's target_modules vocabulary). */
export const LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"] as const;
export type LoraTarget = (typeof LORA_TARGETS)[number];
