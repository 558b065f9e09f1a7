/**
 * Prefix caching across the turns of an episode (as vLLM's automatic prefix caching does for verl / SkyRL rollouts):
 * a multi-turn episode's next prompt is its previous prompt, the reply sampled to it and the environment's answer, so
 * the keys and values of everything before the answer are already known. Keeping them per episode, a turn prefills
 * only its new tokens instead of the whole conversation again.
 *
 * A prompt that is not an extension of the cached sequence (a chat template that re-rendered the conversation,
 * rollout/episode-tokens.ts) reuses the tokens the two share and runs the rest from the first that differs.
 *
 * Keys are stored rotated at each token's own index in its sequence (ForwardOptions.positionOffsets), so a row's
 * cache is valid in any batch whatever its left padding. A cache is valid only for the weights that computed it: the
 * sampler keeps them per episode, and episodes end before the update changes the weights.
 */
import * as tf from "@tensorflow/tfjs";
import type { KvCache } from "./model";

/** Keys and values of one sequence's first `tokens.length` tokens, per layer. */
export interface PrefixCache {
  tokens: number[];
  /** fused layout [1, n, kvHeads*headDim]; stock layout [1, kvHeads, n, headDim] (as KvCache). */
  k: tf.Tensor[];
  v: tf.Tensor[];
  fused: boolean;
  bytes: number;
}

/** The token axis of a cache tensor in each layout. */
const tokenAxis = (fused: boolean) => (fused ? 1 : 2);

export function commonPrefixLength(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * How many leading tokens of `prompt` can come from `prefix`: the common prefix, leaving at least one token to run
 * (its logits start the reply); 0 for a cache built on the other kernel path.
 */
export function reusableLength(prefix: PrefixCache | undefined, prompt: readonly number[], fused: boolean): number {
  if (!prefix || prefix.fused !== fused) return 0;
  return Math.min(commonPrefixLength(prefix.tokens, prompt), prompt.length - 1);
}

/** `n` tokens starting at `start` along the token axis, left-padded with zeros to `width`. */
function rowSlice(t: tf.Tensor, fused: boolean, start: number, n: number, width: number): tf.Tensor {
  const axis = tokenAxis(fused);
  const begin = t.shape.map((_, i) => (i === axis ? start : 0));
  const size = t.shape.map((d, i) => (i === axis ? n : d));
  const part = n > 0 ? tf.slice(t, begin, size) : null;
  if (n === width) return part!;
  const pad = tf.zeros(t.shape.map((d, i) => (i === axis ? width - n : i === 0 ? 1 : d)));
  return part ? tf.concat([pad, part], axis) : pad;
}

/** The shape of one row's cache of `n` tokens in each layout. */
const rowShape = (fused: boolean, n: number, kvHeads: number, headDim: number) =>
  fused ? [1, n, kvHeads * headDim] : [1, kvHeads, n, headDim];

/**
 * A batched cache of `width` tokens from per-row prefixes: row b holds the first `use[b]` tokens of its prefix,
 * right-aligned (left padding, masked by the caller's keyMask). Undefined when `width` is 0.
 */
export function assembleCache(
  prefixes: readonly (PrefixCache | undefined)[],
  use: readonly number[],
  width: number,
  dims: { fused: boolean; layers: number; kvHeads: number; headDim: number },
): KvCache | undefined {
  if (width === 0) return undefined;
  const { fused, kvHeads, headDim } = dims;
  const build = (pick: (p: PrefixCache) => tf.Tensor[]) =>
    Array.from({ length: dims.layers }, (_, i) =>
      tf.tidy(() =>
        tf.concat(
          prefixes.map((p, b) =>
            p && use[b] > 0 ? rowSlice(pick(p)[i], fused, 0, use[b], width) : tf.zeros(rowShape(fused, width, kvHeads, headDim)),
          ),
          0,
        ),
      ),
    );
  return { k: build((p) => p.k), v: build((p) => p.v), length: width, fused };
}

/** Row `b`'s tokens [start, start + tokens.length) of batched per-layer caches, as that sequence's prefix cache. */
export function extractPrefix(
  k: readonly tf.Tensor[],
  v: readonly tf.Tensor[],
  fused: boolean,
  b: number,
  start: number,
  tokens: number[],
): PrefixCache {
  const axis = tokenAxis(fused);
  const take = (t: tf.Tensor) => {
    const begin = t.shape.map((_, i) => (i === 0 ? b : i === axis ? start : 0));
    const size = t.shape.map((d, i) => (i === 0 ? 1 : i === axis ? tokens.length : d));
    return tf.slice(t, begin, size);
  };
  const kk = k.map(take);
  const vv = v.map(take);
  const bytes = [...kk, ...vv].reduce((s, t) => s + t.size * 4, 0);
  return { tokens, k: kk, v: vv, fused, bytes };
}

export function disposePrefix(p: PrefixCache | undefined): void {
  if (p) tf.dispose([...p.k, ...p.v]);
}
