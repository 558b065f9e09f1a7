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

/** Parameters of a Llama/Qwen2-style decoder (embeddings, attention, SwiGLU MLP, norms, optional LM head). */
export function countParameters(d: ModelDims, vocabSize: number): number {
  const head = d.hiddenSize / d.numHeads;
  const kv = d.numKvHeads * head;
  const attention = d.hiddenSize * d.hiddenSize * 2 + d.hiddenSize * kv * 2 + (d.attentionBias ? d.hiddenSize + 2 * kv : 0);
  const mlp = 3 * d.hiddenSize * d.intermediateSize;
  const perLayer = attention + mlp + 2 * d.hiddenSize;
  const embeddings = vocabSize * d.hiddenSize;
  return embeddings + d.numLayers * perLayer + d.hiddenSize + (d.tieEmbeddings ? 0 : embeddings);
}
