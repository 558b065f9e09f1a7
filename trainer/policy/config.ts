/**
 * Decoder configuration, named after transformers' LlamaConfig / Qwen2Config fields so `config.json` of a Hugging
 * Face checkpoint maps onto it directly (see checkpoint/hf-load.ts).
 */
export interface ModelConfig {
  vocabSize: number;
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  /** Grouped-query attention (Ainslie et al. 2023): numHeads must be a multiple of it. Equal to numHeads = MHA. */
  numKvHeads: number;
  intermediateSize: number;
  maxPositions: number;
  ropeTheta: number;
  rmsNormEps: number;
  tieEmbeddings: boolean;
  /** Qwen2 puts biases on q/k/v projections; Llama has none. */
  attentionBias: boolean;
}

export class ModelConfigError extends Error {
  readonly code = "MODEL_CONFIG_INVALID";
  constructor(message: string) {
    super(message);
    this.name = "ModelConfigError";
  }
}

export const PRESETS = {
  /** Unit tests: a few thousand parameters. */
  micro: {
    vocabSize: 259,
    hiddenSize: 32,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    intermediateSize: 64,
    maxPositions: 256,
    ropeTheta: 10000,
    rmsNormEps: 1e-5,
    tieEmbeddings: false,
    attentionBias: false,
  },
  /** The bench reference shape: vocab 256, d 128, 4 layers, 4 heads, context 128, MLP 512 (1.1M params with the byte vocabulary). */
  bench: {
    vocabSize: 256,
    hiddenSize: 128,
    numLayers: 4,
    numHeads: 4,
    numKvHeads: 4,
    intermediateSize: 512,
    maxPositions: 128,
    ropeTheta: 10000,
    rmsNormEps: 1e-5,
    tieEmbeddings: false,
    attentionBias: false,
  },
  /** A "few hundred M" upper end, Qwen2.5-0.5B-like shape (only for machines with the memory). */
  small: {
    vocabSize: 151936,
    hiddenSize: 896,
    numLayers: 24,
    numHeads: 14,
    numKvHeads: 2,
    intermediateSize: 4864,
    maxPositions: 32768,
    ropeTheta: 1000000,
    rmsNormEps: 1e-6,
    tieEmbeddings: true,
    attentionBias: true,
  },
} satisfies Record<string, ModelConfig>;

function positiveInt(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 1) throw new ModelConfigError(`${name} must be a positive integer, got ${v}.`);
}

/** Throws ModelConfigError with the field and a fix when the config cannot describe a working model. */
export function validateModelConfig(c: ModelConfig): ModelConfig {
  positiveInt("vocabSize", c.vocabSize);
  positiveInt("hiddenSize", c.hiddenSize);
  positiveInt("numLayers", c.numLayers);
  positiveInt("numHeads", c.numHeads);
  positiveInt("numKvHeads", c.numKvHeads);
  positiveInt("intermediateSize", c.intermediateSize);
  positiveInt("maxPositions", c.maxPositions);
  if (c.hiddenSize % c.numHeads !== 0) {
    throw new ModelConfigError(
      `numHeads (${c.numHeads}) must divide hiddenSize (${c.hiddenSize}); pick e.g. ${divisorsNear(c.hiddenSize, c.numHeads)}.`,
    );
  }
  if (c.numHeads % c.numKvHeads !== 0) {
    throw new ModelConfigError(`numKvHeads (${c.numKvHeads}) must divide numHeads (${c.numHeads}) for grouped-query attention.`);
  }
  if ((c.hiddenSize / c.numHeads) % 2 !== 0) {
    throw new ModelConfigError(`head size hiddenSize/numHeads = ${c.hiddenSize / c.numHeads} must be even for rotary positions.`);
  }
  if (!(c.ropeTheta > 0)) throw new ModelConfigError(`ropeTheta must be > 0, got ${c.ropeTheta}.`);
  if (!(c.rmsNormEps > 0)) throw new ModelConfigError(`rmsNormEps must be > 0, got ${c.rmsNormEps}.`);
  return c;
}

function divisorsNear(n: number, near: number): string {
  const ds: number[] = [];
  for (let d = 1; d <= n; d++) if (n % d === 0 && (n / d) % 2 === 0) ds.push(d);
  ds.sort((a, b) => Math.abs(a - near) - Math.abs(b - near));
  return ds.slice(0, 3).join(" or ");
}

export const headDim = (c: ModelConfig) => c.hiddenSize / c.numHeads;

/** Parameter count (what transformers' num_parameters() reports, tied embeddings counted once). */
export function countParameters(c: ModelConfig): number {
  const hd = headDim(c);
  const kv = c.numKvHeads * hd;
  const attn = c.hiddenSize * c.hiddenSize * 2 + c.hiddenSize * kv * 2 + (c.attentionBias ? c.hiddenSize + 2 * kv : 0);
  const mlp = 3 * c.hiddenSize * c.intermediateSize;
  const layer = attn + mlp + 2 * c.hiddenSize;
  const embed = c.vocabSize * c.hiddenSize;
  return embed * (c.tieEmbeddings ? 1 : 2) + c.numLayers * layer + c.hiddenSize;
}
