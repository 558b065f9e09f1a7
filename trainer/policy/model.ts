/**
 * Llama-style decoder-only LM in TF.js (Touvron et al. 2023): RMSNorm pre-norm blocks, rotary positions, SwiGLU MLP,
 * grouped-query attention, optional Qwen2 q/k/v biases, Qwen3 q/k norms and tied embeddings. Weights are tf.Variables keyed by their
 * transformers names (params.ts); optional LoRA adapters (lora.ts) add a low-rank path to chosen projections.
 */
import * as tf from "@tensorflow/tfjs";
import { assertWindowCoversContext, headDim, validateModelConfig, type ModelConfig } from "./config";
import { paramSpecs, type ParamSpec } from "./params";
import { TiedEmbedding } from "./tied-embedding";
import { applyRope, isFrozen, lookupRows, mm, mmFrozen, mmTransposed, rmsNorm, ropeTables, rotateHalfMatrix } from "./ops";
import { Rng } from "./rng";
import { LoraAdapters, type LoraConfig } from "./lora";
import { attendBatched, attendLoop2d, pickAttentionMode, type AttentionMode } from "./attention";
import { fusedAttention, fusedOpsAvailable, fusedRmsNorm, fusedRope, fusedSwiGlu } from "./fused";
import { Bf16Matrix, bf16Available } from "./bf16";

/**
 * Per-layer keys/values after rotary, for incremental decoding. Layout depends on the path that built it: the
 * fused kernels keep projection rows, [B, T, kvHeads*headDim]; the stock ops keep [B, kvHeads, T, headDim].
 */
export interface KvCache {
  k: tf.Tensor[];
  v: tf.Tensor[];
  length: number;
  fused: boolean;
}

export interface ForwardOptions {
  cache?: KvCache;
  returnCache?: boolean;
  /** [B, cachedLength + T] 1 = real token, 0 = padding (left-padded prompts in batched sampling). */
  keyMask?: tf.Tensor2D;
  /**
   * Per row, the left padding before its first token: its rotary positions then count from its own first token
   * (past + t − offset), as an unpadded forward of that row would, so a row's cached keys do not depend on the
   * batch it was computed in and can be reused in another (prefix caching). Padding positions clamp to 0 (masked).
   */
  positionOffsets?: Int32Array;
  /**
   * The output head [hidden, vocab] computed once by the caller (`outputHead()`), for decoding loops that run many
   * forwards with the same weights: with tied embeddings it is the embedding's transpose, which otherwise costs a
   * [vocab, hidden] copy per token. Not for training forwards (the gradient must flow to the embedding).
   */
  head?: tf.Tensor2D;
  /**
   * Logits of each sequence's last position only ([B, vocab]): what sampling reads. A prefill of a long prompt would
   * otherwise compute T rows of the output head — a 2,700-token τ² prompt at Qwen's 151,936-token vocabulary is
   * 1.6 GB of logits per sequence, all but one row thrown away.
   */
  lastPositionOnly?: boolean;
}

export interface ForwardResult {
  /** [B*T, vocab], or [B, vocab] with lastPositionOnly */
  logits: tf.Tensor2D;
  cache?: KvCache;
}

let nextModelId = 0;

export class DecoderLM {
  readonly config: ModelConfig;
  readonly specs: ParamSpec[];
  /** transformers name -> variable (in TF.js layout, see params.ts); weights stored in bfloat16 are in `bf16` instead. */
  readonly params = new Map<string, tf.Variable>();
  /** Frozen matrices stored as bfloat16 (bf16.ts): a LoRA base after storeFrozenAsBf16, a bf16 KL reference. */
  private readonly bf16 = new Map<string, Bf16Matrix>();
  lora: LoraAdapters | null = null;
  attentionMode: AttentionMode;
  /**
   * Activation checkpointing (Chen et al. 2016): a training forward keeps only each layer's input, and the backward
   * pass runs the layer again to get what its gradient needs — one layer's activations alive at a time instead of
   * all of them, for one more forward's compute.
   */
  recomputeActivations = false;
  private readonly id = nextModelId++;
  /** False for a LoRA reference that reads its (frozen) base weights from the policy: it must not dispose them. */
  private readonly ownsParams: boolean;
  private readonly cosTable: tf.Tensor2D;
  private readonly sinTable: tf.Tensor2D;
  private readonly rot: tf.Tensor2D;

  constructor(
    config: ModelConfig,
    opts: {
      seed?: number;
      trainable?: boolean;
      initStd?: number;
      shareWeightsOf?: DecoderLM;
      /** Leave out the matrices (frozenCopy stores them in bfloat16 itself). */
      withoutMatrices?: boolean;
    } = {},
  ) {
    this.config = validateModelConfig({ ...config });
    assertWindowCoversContext(this.config);
    this.specs = paramSpecs(this.config);
    const rng = new Rng(opts.seed ?? 0);
    const std = opts.initStd ?? 0.02; // transformers' initializer_range default
    this.ownsParams = !opts.shareWeightsOf;
    for (const s of this.specs) {
      if (opts.shareWeightsOf) {
        const packed = opts.shareWeightsOf.bf16.get(s.name);
        if (packed) this.bf16.set(s.name, packed);
        else this.params.set(s.name, opts.shareWeightsOf.p(s.name));
        continue;
      }
      if (opts.withoutMatrices && s.shape.length === 2) continue;
      // initStd 0 skips random init for weights about to be overwritten (checkpoint loads, frozen copies)
      const init =
        s.init === "ones"
          ? tf.ones(s.shape)
          : s.init === "zeros" || std === 0
            ? tf.zeros(s.shape)
            : tf.randomNormal(s.shape, 0, std, "float32", rng.seed());
      this.params.set(s.name, tf.variable(init, opts.trainable ?? true, `m${this.id}/${s.name}`));
      init.dispose();
    }
    const hd = headDim(this.config);
    const { cos, sin } = ropeTables(this.config.maxPositions, hd, this.config.ropeTheta, this.config.ropeScaling);
    this.cosTable = tf.keep(tf.tensor2d(cos, [this.config.maxPositions, hd]));
    this.sinTable = tf.keep(tf.tensor2d(sin, [this.config.maxPositions, hd]));
    this.rot = tf.keep(rotateHalfMatrix(hd));
    this.attentionMode = pickAttentionMode();
  }

  /** Rotary cos / sin tables [maxPositions, headDim] (read by the native decoder). */
  rotaryTables(): { cos: tf.Tensor2D; sin: tf.Tensor2D } {
    return { cos: this.cosTable, sin: this.sinTable };
  }

  p(name: string): tf.Variable {
    const v = this.params.get(name);
    if (v) return v;
    if (this.bf16.has(name)) throw new Error(`${name} is stored in bfloat16: read it with bf16Weight() or weightCopy()`);
    throw new Error(`model has no parameter ${name}`);
  }

  /** The bfloat16 matrix stored under `name`, if that weight is stored so. */
  bf16Weight(name: string): Bf16Matrix | undefined {
    return this.bf16.get(name);
  }

  get hasBf16Weights(): boolean {
    return this.bf16.size > 0;
  }

  /** A float32 copy of weight `name` whatever its storage (a new tensor the caller disposes). */
  weightCopy(name: string): tf.Tensor {
    return this.bf16.get(name)?.decode() ?? this.p(name).clone();
  }

  /** Sets weight `name` from a float32 tensor of its shape (rounded to bfloat16 when stored so); the caller keeps it. */
  setWeight(name: string, value: tf.Tensor): void {
    const packed = this.bf16.get(name);
    if (!packed) {
      this.p(name).assign(value);
      return;
    }
    if (!this.ownsParams) throw new Error(`${name} belongs to the model this one shares its weights with`);
    this.bf16.set(name, Bf16Matrix.encode(value as tf.Tensor2D));
    packed.dispose();
  }

  /**
   * Stores every frozen matrix (projections, embedding, output head; not norms or biases, which are small) in
   * bfloat16 and frees its float32 variable: a LoRA base after enableLora, or a reference before it is filled.
   * Returns false, changing nothing, where the bfloat16 kernels are not available.
   */
  storeFrozenAsBf16(): boolean {
    if (!bf16Available()) return false;
    for (const s of this.specs) {
      const v = this.params.get(s.name);
      if (!v || v.trainable || v.rank !== 2) continue;
      this.bf16.set(s.name, Bf16Matrix.encode(v as tf.Tensor2D));
      this.params.delete(s.name);
      if (this.ownsParams) v.dispose();
    }
    return true;
  }

  /** Variables the optimizer updates: the LoRA adapters when present (base frozen), else every weight. */
  trainableVariables(): tf.Variable[] {
    if (this.lora) return this.lora.variables();
    return [...this.params.values()].filter((v) => v.trainable);
  }

  enableLora(cfg: LoraConfig, seed = 0): LoraAdapters {
    if (this.lora) throw new Error("LoRA adapters are already enabled on this model");
    for (const v of this.params.values()) v.trainable = false;
    this.lora = new LoraAdapters(this, cfg, seed, `m${this.id}`);
    return this.lora;
  }

  private proj(x: tf.Tensor2D, layer: number, module: string, name: string): tf.Tensor2D {
    const base = `model.layers.${layer}.${module}.${name}`;
    const packed = this.bf16.get(`${base}.weight`);
    let y: tf.Tensor2D;
    if (packed) {
      y = packed.matMul(x);
    } else {
      const w = this.p(`${base}.weight`) as tf.Tensor2D;
      y = isFrozen(w) ? mmFrozen(x, { w }) : mm(x, w);
    }
    const bias = this.params.get(`${base}.bias`);
    if (bias) y = tf.add(y, bias);
    if (this.lora) y = this.lora.apply(x, y, base);
    return y;
  }

  /**
   * Logits for token ids [B, T] (row-major in `ids`), continuing `opts.cache` when given.
   * Memory contract: the intermediates this allocates are not freed here. Call it inside `tf.tidy` (or a gradient
   * function such as `tf.variableGrads`, which tidies) and keep only what you return; the log-prob and sampling
   * helpers (logprobs.ts, sampling.ts) do.
   */
  forward(ids: Int32Array, B: number, T: number, opts: ForwardOptions = {}): ForwardResult {
    const c = this.config;
    const past = opts.cache?.length ?? 0;
    if (past + T > c.maxPositions) {
      throw new Error(`sequence of ${past + T} tokens exceeds maxPositions ${c.maxPositions}`);
    }
    for (const id of ids) {
      if (id < 0 || id >= c.vocabSize) throw new Error(`token id ${id} outside vocabulary of ${c.vocabSize}`);
    }
    const fused = fusedOpsAvailable();
    if (opts.cache && opts.cache.fused !== fused) {
      throw new Error("the KV cache was built with native kernels switched the other way; finish a generation on one setting");
    }
    const pos = new Int32Array(B * T);
    const offsets = opts.positionOffsets;
    if (offsets && offsets.length !== B) throw new Error(`positionOffsets has ${offsets.length} rows for a batch of ${B}`);
    for (let b = 0; b < B; b++) for (let t = 0; t < T; t++) pos[b * T + t] = Math.max(0, past + t - (offsets?.[b] ?? 0));
    const packedEmbedding = this.bf16.get("model.embed_tokens.weight");
    const table = packedEmbedding ? null : (this.p("model.embed_tokens.weight") as tf.Tensor2D);
    // a trainable tied table read at both ends shares one gradient buffer between them (tied-embedding.ts)
    const tiedTable = table && c.tieEmbeddings && !opts.head && !isFrozen(table) ? new TiedEmbedding(table, ids) : null;
    let h = table ? (tiedTable ? tiedTable.rows : lookupRows(table, ids)) : (packedEmbedding as Bf16Matrix).rows(ids);
    const newCache: KvCache | undefined = opts.returnCache || opts.cache ? { k: [], v: [], length: past + T, fused } : undefined;
    const posT = tf.tensor1d(pos, "int32");
    const build = (pos: tf.Tensor1D, keyMask: tf.Tensor2D | undefined) => {
      const o = { ...opts, keyMask };
      return fused ? this.fusedLayer(pos, B, T, o, newCache) : this.stockLayer(pos, B, T, o, newCache);
    };
    const layer = build(posT, opts.keyMask);
    // decoding forwards (a cache, a caller's head) keep what they build; only training forwards recompute
    const recompute = this.recomputeActivations && !opts.cache && !newCache && !opts.head;
    for (let i = 0; i < c.numLayers; i++) {
      h = recompute ? this.recomputed(i, h, [posT, ...(opts.keyMask ? [opts.keyMask] : [])], build) : layer(h, i);
    }
    posT.dispose();
    const last =
      opts.lastPositionOnly && T > 1
        ? (tf.reshape(tf.slice(tf.reshape(h, [B, T, -1]), [0, T - 1, 0], [B, 1, -1]), [B, -1]) as tf.Tensor2D)
        : h;
    const hf = this.norm(last, "model.norm.weight", fused);
    const given = opts.head;
    const logits = given ? (isFrozen(given) ? mmFrozen(hf, { w: given }) : mm(hf, given)) : this.headLogits(hf, tiedTable);
    return { logits, cache: newCache };
  }

  /** hf [rows, hidden] times the output projection, read in whatever form it is stored. */
  headLogits(hf: tf.Tensor2D, tiedTable: TiedEmbedding | null = null): tf.Tensor2D {
    const name = this.config.tieEmbeddings ? "model.embed_tokens.weight" : "lm_head.weight";
    const tied = this.config.tieEmbeddings;
    const packed = this.bf16.get(name);
    if (packed) return packed.matMul(hf, tied);
    const w = this.p(name) as tf.Tensor2D;
    // A frozen tied head needs neither the embedding's transpose nor its gradient.
    if (isFrozen(w)) return mmFrozen(hf, tied ? { wT: w } : { w });
    if (tied && tiedTable) return tiedTable.head(hf);
    return tied ? mmTransposed(hf, w) : mm(hf, w);
  }

  /**
   * The output projection [hidden, vocab] for a decoding loop to pass as `ForwardOptions.head`: lm_head, or the
   * trainable embedding's transpose when tied (a new tensor then, which the caller disposes; `ownsOutputHead` says
   * which). Null where the forward reads the head without a copy: a frozen tied embedding, a bfloat16 head, or any
   * tied embedding when the native kernels are on.
   */
  outputHead(): tf.Tensor2D | null {
    if (!this.config.tieEmbeddings) return this.bf16.has("lm_head.weight") ? null : (this.p("lm_head.weight") as tf.Tensor2D);
    if (this.bf16.has("model.embed_tokens.weight") || isFrozen(this.p("model.embed_tokens.weight"))) return null;
    // The native kernels read the embedding transposed in place (PyTorch's decode does the same): a copy would cost
    // a [vocab, hidden] transpose per generation (0.5 s and 544 MB at Qwen2.5-0.5B) to save ~6 ms per token.
    if (fusedOpsAvailable()) return null;
    return tf.transpose(this.p("model.embed_tokens.weight")) as tf.Tensor2D;
  }

  get ownsOutputHead(): boolean {
    return this.config.tieEmbeddings;
  }

  private norm(x: tf.Tensor2D, weight: string, fused: boolean): tf.Tensor2D {
    const w = this.p(weight) as tf.Tensor1D;
    return fused ? fusedRmsNorm(x, w, this.config.rmsNormEps) : rmsNorm(x, w, this.config.rmsNormEps);
  }

  /**
   * Qwen3's q_norm / k_norm: RMSNorm over each head of the projected queries or keys [rows, heads*headDim], with one
   * weight per head dimension (transformers' Qwen3RMSNorm on the [.., heads, headDim] view), before rotary positions.
   * The identity for models without them.
   */
  private headNorm(x: tf.Tensor2D, layer: number, name: "q_norm" | "k_norm", fused: boolean): tf.Tensor2D {
    if (!this.config.qkNorm) return x;
    const hd = headDim(this.config);
    const [rows, width] = x.shape;
    const perHead = tf.reshape(x, [rows * (width / hd), hd]) as tf.Tensor2D;
    return tf.reshape(this.norm(perHead, `model.layers.${layer}.self_attn.${name}.weight`, fused), [rows, width]) as tf.Tensor2D;
  }

  /** One decoder block on the native fused kernels (trainer/policy/fused.ts). */
  private fusedLayer(posT: tf.Tensor1D, B: number, T: number, opts: ForwardOptions, newCache?: KvCache) {
    const c = this.config;
    const hd = headDim(c);
    const past = opts.cache?.length ?? 0;
    const rows = (x: tf.Tensor2D) => tf.reshape(x, [B, T, c.numKvHeads * hd]);
    return (h: tf.Tensor2D, i: number): tf.Tensor2D => {
      const xn = this.norm(h, `model.layers.${i}.input_layernorm.weight`, true);
      const q = fusedRope(
        this.headNorm(this.proj(xn, i, "self_attn", "q_proj"), i, "q_norm", true),
        c.numHeads,
        posT,
        this.cosTable,
        this.sinTable,
      );
      const k = fusedRope(
        this.headNorm(this.proj(xn, i, "self_attn", "k_proj"), i, "k_norm", true),
        c.numKvHeads,
        posT,
        this.cosTable,
        this.sinTable,
      );
      const v = this.proj(xn, i, "self_attn", "v_proj");
      const kAll = opts.cache ? tf.concat([opts.cache.k[i], rows(k)], 1) : rows(k);
      const vAll = opts.cache ? tf.concat([opts.cache.v[i], rows(v)], 1) : rows(v);
      newCache?.k.push(kAll);
      newCache?.v.push(vAll);
      const flat = (x: tf.Tensor) => tf.reshape(x, [B * (past + T), c.numKvHeads * hd]) as tf.Tensor2D;
      const shape = { B, T, heads: c.numHeads, kvHeads: c.numKvHeads, headDim: hd, past };
      const attn = fusedAttention(q, flat(kAll), flat(vAll), shape, opts.keyMask);
      const h2 = tf.add(h, this.proj(attn, i, "self_attn", "o_proj")) as tf.Tensor2D;
      const hn = this.norm(h2, `model.layers.${i}.post_attention_layernorm.weight`, true);
      const mlp = fusedSwiGlu(this.proj(hn, i, "mlp", "gate_proj"), this.proj(hn, i, "mlp", "up_proj"));
      return tf.add(h2, this.proj(mlp, i, "mlp", "down_proj")) as tf.Tensor2D;
    };
  }

  /** One decoder block from stock TF.js ops (any backend). */
  private stockLayer(posT: tf.Tensor1D, B: number, T: number, opts: ForwardOptions, newCache?: KvCache) {
    const c = this.config;
    const hd = headDim(c);
    const cosRows = tf.gather(this.cosTable, posT) as tf.Tensor2D;
    const sinRows = tf.gather(this.sinTable, posT) as tf.Tensor2D;
    return (h: tf.Tensor2D, i: number): tf.Tensor2D => {
      const xn = this.norm(h, `model.layers.${i}.input_layernorm.weight`, false);
      const q = applyRope(
        this.headNorm(this.proj(xn, i, "self_attn", "q_proj"), i, "q_norm", false),
        c.numHeads,
        hd,
        cosRows,
        sinRows,
        this.rot,
      );
      const k = applyRope(
        this.headNorm(this.proj(xn, i, "self_attn", "k_proj"), i, "k_norm", false),
        c.numKvHeads,
        hd,
        cosRows,
        sinRows,
        this.rot,
      );
      const v = this.proj(xn, i, "self_attn", "v_proj");
      const shape = { B, T, heads: c.numHeads, kvHeads: c.numKvHeads, headDim: hd };
      let attn: tf.Tensor2D;
      if (opts.cache || this.attentionMode === "batched") {
        const cached = opts.cache && { k: opts.cache.k[i] as tf.Tensor4D, v: opts.cache.v[i] as tf.Tensor4D };
        const r = attendBatched(q, k, v, shape, cached, opts.keyMask);
        attn = r.out;
        newCache?.k.push(r.k);
        newCache?.v.push(r.v);
      } else {
        attn = attendLoop2d(q, k, v, shape, opts.keyMask);
        newCache?.k.push(tf.transpose(tf.reshape(k, [B, T, c.numKvHeads, hd]), [0, 2, 1, 3]));
        newCache?.v.push(tf.transpose(tf.reshape(v, [B, T, c.numKvHeads, hd]), [0, 2, 1, 3]));
      }
      const h2 = tf.add(h, this.proj(attn, i, "self_attn", "o_proj")) as tf.Tensor2D;
      const hn = this.norm(h2, `model.layers.${i}.post_attention_layernorm.weight`, false);
      const gate = this.proj(hn, i, "mlp", "gate_proj");
      const up = this.proj(hn, i, "mlp", "up_proj");
      // SwiGLU (Shazeer 2020): down(silu(gate) * up)
      return tf.add(h2, this.proj(tf.mul(tf.mul(gate, tf.sigmoid(gate)), up), i, "mlp", "down_proj")) as tf.Tensor2D;
    };
  }

  /**
   * Layer i as one tape node whose backward recomputes it: the forward's intermediates are freed at once (a custom
   * op's forward runs in its own tidy), only the layer's input and what the layer reads besides its weights
   * (positions, key mask) are saved, and the gradient of the input and of the layer's trainable weights (its own, or
   * its LoRA adapters) comes from running the layer again under tf.grads. The weights are inputs of the node so the
   * outer gradient reaches them; the layer is rebuilt from the saved tensors because the forward's are gone by then.
   */
  private recomputed(
    i: number,
    h: tf.Tensor2D,
    context: tf.Tensor[],
    build: (pos: tf.Tensor1D, keyMask: tf.Tensor2D | undefined) => (h: tf.Tensor2D, i: number) => tf.Tensor2D,
  ): tf.Tensor2D {
    const weights = this.trainableVariables().filter((v) => v.name.includes(`/model.layers.${i}.`));
    const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
      const save = args[args.length - 1] as tf.GradSaveFunc;
      const x = args[0] as tf.Tensor2D;
      save([x, ...context]);
      return {
        value: build(context[0] as tf.Tensor1D, context[1] as tf.Tensor2D | undefined)(x, i),
        gradFunc: (dy: tf.Tensor | tf.Tensor[], [sx, pos, keyMask]: tf.Tensor[]) => {
          const layer = build(pos as tf.Tensor1D, keyMask as tf.Tensor2D | undefined);
          // A gradient inside a gradient: the engine starts a tape of its own for it and, finishing, frees that tape
          // and drops the reference to the outer one, whose saved tensors would then never be freed (and whose
          // clean-up would fail). Keep the outer tape across the inner pass.
          const state = (tf.engine() as unknown as { state: { activeTape: unknown } }).state;
          const outer = state.activeTape;
          try {
            return tf.grads((xi: tf.Tensor) => layer(xi as tf.Tensor2D, i))([sx, ...weights], dy as tf.Tensor);
          } finally {
            state.activeTape = outer;
          }
        },
      };
    });
    return op(h, ...weights) as tf.Tensor2D;
  }

  /** Copies every base weight from `other` (same config), e.g. to refresh a frozen reference policy. */
  copyWeightsFrom(other: DecoderLM): void {
    for (const s of this.specs) {
      const mine = this.params.get(s.name) ?? this.bf16.get(s.name);
      if (mine === (other.params.get(s.name) ?? other.bf16.get(s.name))) continue; // shared: already the same
      const value = other.params.get(s.name);
      if (value) this.setWeight(s.name, value);
      else tf.tidy(() => this.setWeight(s.name, other.weightCopy(s.name)));
    }
    if (this.lora && other.lora) this.lora.copyFrom(other.lora);
  }

  /**
   * A frozen copy with the same weights, for the KL reference policy. With LoRA the base weights are frozen, so
   * the copy reads them from this model and keeps only a frozen snapshot of the adapters: a 0.5B LoRA run's
   * reference costs the adapters' few MB instead of a second 2 GB of weights. Without LoRA, `bf16` stores the
   * copy's matrices in bfloat16 (half of those 2 GB) where the kernels allow.
   */
  frozenCopy(opts: { bf16?: boolean } = {}): DecoderLM {
    if (this.lora) {
      const ref = new DecoderLM(this.config, { shareWeightsOf: this });
      ref.attentionMode = this.attentionMode;
      ref.lora = this.lora.frozenSnapshot(ref, `m${ref.id}`);
      return ref;
    }
    const packed = opts.bf16 === true && bf16Available();
    const ref = new DecoderLM(this.config, { trainable: false, initStd: 0, withoutMatrices: packed });
    ref.attentionMode = this.attentionMode;
    for (const s of this.specs) {
      if (ref.params.has(s.name)) continue;
      const bf16 = this.bf16.get(s.name);
      ref.bf16.set(s.name, bf16 ? bf16.copy() : Bf16Matrix.encode(this.p(s.name) as tf.Tensor2D));
    }
    for (const [name, v] of ref.params) {
      const source = this.params.get(name);
      if (source) v.assign(source);
      else tf.tidy(() => v.assign(this.weightCopy(name)));
    }
    return ref;
  }

  dispose(): void {
    if (this.ownsParams) for (const t of [...this.params.values(), ...this.bf16.values()]) t.dispose();
    this.lora?.dispose();
    this.cosTable.dispose();
    this.sinTable.dispose();
    this.rot.dispose();
  }
}

export function disposeCache(cache: KvCache | undefined): void {
  if (!cache) return;
  for (const t of [...cache.k, ...cache.v]) t.dispose();
}
