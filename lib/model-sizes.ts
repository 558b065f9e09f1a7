/**
 * The built-in policy sizes a run config can name (`policy.model`), shared by the trainer (which builds them) and
 * the web app (which estimates a step's memory before queueing a run). Vocabulary size comes from the tokenizer.
 */

/** Decoder dimensions, named as in transformers' LlamaConfig (the trainer's ModelConfig uses the same names). */
export interface ModelDims {
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  intermediateSize: number;
  maxPositions: number;
  tieEmbeddings: boolean;
  attentionBias: boolean;
  /** Width of one attention head when the config sets it (Qwen3, Mistral: `head_dim`); else hiddenSize / numHeads. */
  headDim?: number;
  /** Qwen3's per-head RMSNorm of queries and keys (q_norm, k_norm) before rotary positions. */
  qkNorm?: boolean;
}

export const BUILTIN_MODEL_DIMS = {
  tiny: {
    hiddenSize: 32,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    intermediateSize: 64,
    maxPositions: 512,
    tieEmbeddings: false,
    attentionBias: false,
  },
  small: {
    hiddenSize: 128,
    numLayers: 4,
    numHeads: 4,
    numKvHeads: 4,
    intermediateSize: 512,
    maxPositions: 512,
    tieEmbeddings: false,
    attentionBias: false,
  },
  base: {
    hiddenSize: 256,
    numLayers: 6,
    numHeads: 8,
    numKvHeads: 4,
    intermediateSize: 1024,
    maxPositions: 1024,
    tieEmbeddings: false,
    attentionBias: false,
  },
} as const satisfies Record<string, ModelDims>;

export type BuiltinModelSize = keyof typeof BUILTIN_MODEL_DIMS;

/** The byte tokenizer's vocabulary: 256 bytes and its special tokens. */
export const BYTE_VOCAB_SIZE = 259;

/** A head's width: the config's own, else hiddenSize / numHeads. */
export const headDimOf = (d: ModelDims) => d.headDim ?? d.hiddenSize / d.numHeads;

/**
 * Parameters of a Llama/Qwen2/Qwen3-style decoder (embeddings, attention, SwiGLU MLP, norms, optional LM head), as
 * transformers' num_parameters() counts them (tied embeddings once).
 */
export function countParameters(d: ModelDims, vocabSize: number): number {
  const head = headDimOf(d);
  const q = d.numHeads * head;
  const kv = d.numKvHeads * head;
  const attention = 2 * d.hiddenSize * q + 2 * d.hiddenSize * kv + (d.attentionBias ? q + 2 * kv : 0) + (d.qkNorm ? 2 * head : 0);
  const mlp = 3 * d.hiddenSize * d.intermediateSize;
  const perLayer = attention + mlp + 2 * d.hiddenSize;
  const embeddings = vocabSize * d.hiddenSize;
  return embeddings + d.numLayers * perLayer + d.hiddenSize + (d.tieEmbeddings ? 0 : embeddings);
}
