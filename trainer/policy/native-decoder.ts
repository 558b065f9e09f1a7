/**
 * Token-by-token decoding after the prefill with one native kernel per layer (native/blas/src/decode.c) and a KV
 * cache allocated once for the whole generation. The op-level path runs ~90 TF.js ops per token on the reference
 * decoder, each with a fixed engine cost, and copies the growing cache on every step (concat); this runs ~8.
 *
 * The cache tensors are written in place by the kernel (row `past` of each sequence) — an exception to TF.js's
 * immutable tensors that is safe here because this class allocates them, never hands them out, and disposes them.
 */
import * as tf from "@tensorflow/tfjs";
import { FUSED } from "../backend/native/fused-kernels";
import { headDim } from "./config";
import { fusedOpsAvailable, fusedRmsNorm } from "./fused";
import type { DecoderLM, KvCache } from "./model";
import { lookupRows, mm } from "./ops";

export class NativeDecoder {
  private readonly k: tf.Tensor[];
  private readonly v: tf.Tensor[];

  /**
   * Available for plain float32 models on the fused path (LoRA adapters and bfloat16 weights would need their own
   * path through the kernel, and so would Qwen3's q/k norms: those decode on the op-level path).
   */
  static supports(model: DecoderLM): boolean {
    return (
      fusedOpsAvailable() &&
      tf.getKernel(FUSED.decodeLayer, tf.getBackend()) !== undefined &&
      model.lora === null &&
      !model.hasBf16Weights &&
      !model.config.qkNorm
    );
  }

  /**
   * Takes over a prefill cache ([B, L, kvHeads*headDim] per layer, fused layout) into buffers with room for
   * `capacity` positions. The prefill cache stays the caller's to dispose. `head`: the generation's
   * `model.outputHead()` (the caller's to dispose), or null to read the weights as stored.
   */
  constructor(
    private readonly model: DecoderLM,
    prefill: KvCache,
    private readonly B: number,
    readonly capacity: number,
    private readonly head: tf.Tensor2D | null = null,
  ) {
    if (!prefill.fused) throw new Error("NativeDecoder needs a cache built by the fused path");
    const width = model.config.numKvHeads * headDim(model.config);
    const grow = (t: tf.Tensor) => tf.tidy(() => tf.concat([t, tf.zeros([B, capacity - prefill.length, width])], 1));
    this.k = prefill.k.map(grow);
    this.v = prefill.v.map(grow);
  }

  /**
   * Logits [B, vocab] for one new token per sequence at position `past` (tokens already cached). `keyMask`
   * [B, capacity]: 1 for real tokens, 0 for left padding (positions after `past` are never read). `positions` [B]:
   * each row's own rotary position for the token (past − its left padding; see ForwardOptions.positionOffsets).
   */
  step(ids: Int32Array, past: number, keyMask?: tf.Tensor2D, positions?: Int32Array): tf.Tensor2D {
    const m = this.model;
    const c = m.config;
    if (past >= this.capacity) throw new Error(`decode position ${past} is past the cache capacity ${this.capacity}`);
    return tf.tidy(() => {
      let h: tf.Tensor = lookupRows(m.p("model.embed_tokens.weight") as tf.Tensor2D, ids);
      const rowPositions = positions ? tf.tensor1d(positions, "int32") : undefined;
      for (let i = 0; i < c.numLayers; i++) {
        const pre = `model.layers.${i}`;
        const inputs: tf.NamedTensorMap = {
          h,
          ln1: m.p(`${pre}.input_layernorm.weight`),
          wq: m.p(`${pre}.self_attn.q_proj.weight`),
          wk: m.p(`${pre}.self_attn.k_proj.weight`),
          wv: m.p(`${pre}.self_attn.v_proj.weight`),
          wo: m.p(`${pre}.self_attn.o_proj.weight`),
          ln2: m.p(`${pre}.post_attention_layernorm.weight`),
          wg: m.p(`${pre}.mlp.gate_proj.weight`),
          wu: m.p(`${pre}.mlp.up_proj.weight`),
          wd: m.p(`${pre}.mlp.down_proj.weight`),
          cacheK: this.k[i],
          cacheV: this.v[i],
          cos: m.rotaryTables().cos,
          sin: m.rotaryTables().sin,
        };
        if (c.attentionBias) {
          inputs.bq = m.p(`${pre}.self_attn.q_proj.bias`);
          inputs.bk = m.p(`${pre}.self_attn.k_proj.bias`);
          inputs.bv = m.p(`${pre}.self_attn.v_proj.bias`);
        }
        if (keyMask) inputs.keyMask = keyMask;
        if (rowPositions) inputs.positions = rowPositions;
        const attrs = { heads: c.numHeads, kvHeads: c.numKvHeads, headDim: headDim(c), past, eps: c.rmsNormEps };
        h = tf.engine().runKernel(FUSED.decodeLayer, inputs, attrs as unknown as tf.NamedAttrMap) as tf.Tensor;
      }
      const hf = fusedRmsNorm(h as tf.Tensor2D, m.p("model.norm.weight") as tf.Tensor1D, c.rmsNormEps);
      return this.head ? mm(hf, this.head) : m.headLogits(hf);
    });
  }

  /** The decode caches [B, capacity, kvHeads*headDim] per layer (fused layout), for reading rows out. */
  caches(): { k: readonly tf.Tensor[]; v: readonly tf.Tensor[]; fused: true } {
    return { k: this.k, v: this.v, fused: true };
  }

  dispose(): void {
    tf.dispose([...this.k, ...this.v]);
  }
}
