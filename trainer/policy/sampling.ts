/**
 * Autoregressive sampling with a KV cache: one prefill pass over the (left-padded) prompts, then one token per step
 * attending to cached keys/values. Left padding is exact under rotary positions because attention scores depend only
 * on relative positions and padded keys are masked out (tested against full recomputation in sampling.test.ts).
 */
import * as tf from "@tensorflow/tfjs";
import { disposeCache, type DecoderLM, type KvCache } from "./model";
import { NativeDecoder } from "./native-decoder";
import { Rng } from "./rng";
import { headDim } from "./config";
import { fusedOpsAvailable } from "./fused";
import { assembleCache, extractPrefix, reusableLength, type PrefixCache } from "./prefix-cache";

export interface SampleOptions {
  maxNewTokens: number;
  /** 0 = greedy. */
  temperature?: number;
  /** Nucleus sampling (Holtzman et al. 2020); 1 = off. */
  topP?: number;
  /** Generation stops after any of these tokens (e.g. <|im_end|>, eos); the token is kept in the output. */
  stopTokenIds?: number[];
  /** Stop once the decoded completion contains one of these strings (requires `decode`). */
  stopStrings?: string[];
  decode?: (ids: number[]) => string;
  /**
   * One generator for the whole batch, or one per prompt: then each row's draws depend only on its own generator
   * and logits, so a prompt samples the same tokens whichever batch it was put in, up to float rounding
   * (trainer/policy/batched-sampler).
   */
  rng: Rng | readonly Rng[];
  /**
   * Per prompt, the keys and values of an earlier sequence it continues (prefix-cache.ts): the tokens they share
   * are not run again. Read only; the caller keeps ownership.
   */
  prefixes?: readonly (PrefixCache | undefined)[];
  /** Return each sequence's keys and values (prompt and reply but its last token) for its next turn. */
  keepPrefix?: boolean;
}

export interface Sample {
  tokens: number[];
  /** log p(token) under the untempered model, aligned with `tokens`. */
  logprobs: number[];
  finishReason: "stop" | "length";
  /** Prompt tokens whose keys and values came from the given prefix instead of being run. */
  reusedTokens: number;
  /** With `keepPrefix`: this sequence's cache, the caller's to dispose (disposePrefix). */
  prefix?: PrefixCache;
}

/**
 * Index drawn from logits row `l` with temperature / top-p, plus its log-prob under the distribution the update
 * computes — the full softmax of `l / temperature` (no top-p renormalisation; temperature 0 counts as 1, as in
 * policy/logprobs.ts) — so the update can use it as the old log-prob instead of recomputing it.
 */
export function sampleFromLogits(l: Float32Array, temperature: number, topP: number, rng: Rng): { id: number; logprob: number } {
  let max = -Infinity;
  for (let i = 0; i < l.length; i++) if (l[i] > max) max = l[i];
  if (temperature <= 0) {
    let z = 0;
    for (let i = 0; i < l.length; i++) z += Math.exp(l[i] - max);
    let id = 0;
    for (let i = 1; i < l.length; i++) if (l[i] > l[id]) id = i;
    return { id, logprob: l[id] - (max + Math.log(z)) };
  }
  // One scratch buffer for every call: at a 151,936-token vocabulary a fresh one per row per token, plus an index
  // array to draw from, cost more than the softmax itself.
  if (probabilities.length < l.length) probabilities = new Float64Array(l.length);
  const p = probabilities;
  let s = 0;
  for (let i = 0; i < l.length; i++) s += p[i] = Math.exp((l[i] - max) / temperature);
  for (let i = 0; i < l.length; i++) p[i] /= s;
  const id = topP < 1 ? draw(p, nucleus(p, l.length, topP), rng) : drawAll(p, l.length, rng);
  // s is also the tempered distribution's normaliser: the same sum, in the same order.
  return { id, logprob: (l[id] - max) / temperature - Math.log(s) };
}

let probabilities = new Float64Array(0);

/** The smallest set of most likely ids whose probabilities reach topP (Holtzman et al. 2020). */
function nucleus(p: Float64Array, n: number, topP: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => p[b] - p[a]);
  const allowed: number[] = [];
  let cum = 0;
  for (const i of order) {
    allowed.push(i);
    cum += p[i];
    if (cum >= topP) break;
  }
  return allowed;
}

/** An id from `candidates` with probability proportional to p (renormalised over them). */
function draw(p: Float64Array, candidates: number[], rng: Rng): number {
  let total = 0;
  for (const i of candidates) total += p[i];
  let u = rng.next() * total;
  for (const i of candidates) {
    u -= p[i];
    if (u <= 0) return i;
  }
  return candidates[candidates.length - 1];
}

/** The same over ids 0..n-1, without building the index list. */
function drawAll(p: Float64Array, n: number, rng: Rng): number {
  let total = 0;
  for (let i = 0; i < n; i++) total += p[i];
  let u = rng.next() * total;
  for (let i = 0; i < n; i++) {
    u -= p[i];
    if (u <= 0) return i;
  }
  return n - 1;
}

/** Decodes the prompts to completion in one go (blocking the event loop until done). */
export function generate(model: DecoderLM, prompts: number[][], opts: SampleOptions): Sample[] {
  const steps = decodeSteps(model, prompts, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * The same decoding, yielding to the event loop after every token: a worker's lease heartbeats and cancel requests
 * must not wait for a whole batch of long generations (seconds per batch for larger policies). Stops with the abort
 * reason once `signal` fires. Token for token identical to `generate`.
 */
export async function generateYielding(
  model: DecoderLM,
  prompts: number[][],
  opts: SampleOptions,
  signal?: AbortSignal,
): Promise<Sample[]> {
  const steps = decodeSteps(model, prompts, opts);
  try {
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
    }
  } finally {
    steps.return([]); // runs the generator's cleanup (KV cache, native decoder) if we stopped early
  }
}

function* decodeSteps(model: DecoderLM, prompts: number[][], opts: SampleOptions): Generator<void, Sample[], void> {
  const B = prompts.length;
  const L = Math.max(...prompts.map((p) => p.length));
  const rngs = Array.isArray(opts.rng) ? (opts.rng as readonly Rng[]) : null;
  if (rngs && rngs.length !== B) throw new Error(`generate got ${rngs.length} generators for ${B} prompts`);
  if (L === 0) throw new Error("generate needs non-empty prompts");
  if (L >= model.config.maxPositions) {
    throw new Error(
      `a prompt of ${L} tokens leaves no room to generate within maxPositions ${model.config.maxPositions}; truncate it first`,
    );
  }
  const budget = Math.min(opts.maxNewTokens, model.config.maxPositions - L);
  const temperature = opts.temperature ?? 1;
  const topP = opts.topP ?? 1;
  const stops = new Set(opts.stopTokenIds ?? []);
  // Prefix reuse: row b's first `reuse[b]` tokens have cached keys and values. The prefill runs the last S tokens
  // of every row (S = the longest part not cached; a row with a longer cache recomputes a few cached tokens, which
  // keeps the block rectangular) on top of a cache of the first L − S positions.
  const fused = fusedOpsAvailable();
  const reuse = prompts.map((p, b) => reusableLength(opts.prefixes?.[b], p, fused));
  const S = Math.max(...prompts.map((p, b) => p.length - reuse[b]));
  const use = prompts.map((p) => Math.max(0, p.length - S));
  const ids = new Int32Array(B * S);
  const mask: number[][] = prompts.map((p) => [...Array(L - p.length).fill(0), ...Array(p.length).fill(1)]);
  prompts.forEach((p, b) => ids.set(p.slice(use[b]), b * S + (S - (p.length - use[b]))));
  const pads = Int32Array.from(prompts, (p) => L - p.length);
  const padded = prompts.some((p) => p.length < L);
  const out: Sample[] = prompts.map((_, b) => ({ tokens: [], logprobs: [], finishReason: "length", reusedTokens: use[b] }));
  const done = new Array<boolean>(B).fill(false);
  const { numLayers, numKvHeads } = model.config;
  let cache: KvCache | undefined = assembleCache(opts.prefixes ?? [], use, L - S, {
    fused,
    layers: numLayers,
    kvHeads: numKvHeads,
    headDim: headDim(model.config),
  });
  let decoder: NativeDecoder | null = null;
  let past = L - S;
  let stepIds = ids;
  let stepLen = S;
  // The output head once per generation (with trainable tied embeddings a transpose of the whole embedding table).
  const head = model.outputHead() ?? undefined;
  try {
    for (let step = 0; step < budget; step++) {
      let last: tf.Tensor2D;
      if (decoder) {
        const d = decoder;
        const positions = padded ? Int32Array.from(pads, (pad) => past - pad) : undefined;
        last = tf.tidy(() => d.step(stepIds, past, padded ? maskTensor(mask, d.capacity) : undefined, positions));
      } else {
        const prev = cache;
        let built: KvCache | undefined;
        last = tf.tidy(() => {
          const keyMask = padded ? maskTensor(mask, mask[0].length) : undefined;
          const positionOffsets = padded ? pads : undefined;
          const r = model.forward(stepIds, B, stepLen, {
            cache: prev,
            returnCache: true,
            keyMask,
            head,
            positionOffsets,
            lastPositionOnly: true,
          });
          built = r.cache as KvCache;
          for (const t of [...built.k, ...built.v]) tf.keep(t);
          return r.logits;
        });
        disposeCache(prev);
        cache = built;
        // after the prefill, decode token by token natively where the kernels allow (native-decoder.ts)
        if (cache && budget > 1 && NativeDecoder.supports(model)) {
          decoder = new NativeDecoder(model, cache, B, L + budget, head ?? null);
          disposeCache(cache);
          cache = undefined;
        }
      }
      past += stepLen;
      const logits = last.dataSync() as Float32Array;
      last.dispose();
      const V = model.config.vocabSize;
      const next = new Int32Array(B);
      for (let b = 0; b < B; b++) {
        if (done[b] && rngs) {
          // a row's own generator must not advance after its row ended, or its next turn would depend on how long
          // its batch-mates ran (a shared generator is batch-dependent anyway and keeps its old draw order)
          next[b] = 0; // any id keeps the batch rectangular: an ended row's outputs are never read
          mask[b].push(1);
          continue;
        }
        const { id, logprob } = sampleFromLogits(
          logits.subarray(b * V, (b + 1) * V),
          temperature,
          topP,
          rngs ? rngs[b] : (opts.rng as Rng),
        );
        next[b] = id;
        mask[b].push(1);
        if (done[b]) continue;
        out[b].tokens.push(id);
        out[b].logprobs.push(logprob);
        if (stops.has(id) || hitsStopString(out[b].tokens, opts)) {
          done[b] = true;
          out[b].finishReason = "stop";
        }
      }
      if (done.every(Boolean)) break;
      stepIds = next;
      stepLen = 1;
      yield;
    }
    if (opts.keepPrefix) {
      // Everything fed so far: the prompt and the reply but its last token (sampled, never run).
      const kept = decoder ? decoder.caches() : cache!;
      out.forEach((o, b) => (o.prefix = extractPrefix(kept.k, kept.v, kept.fused, b, pads[b], [...prompts[b], ...o.tokens.slice(0, -1)])));
    }
  } finally {
    disposeCache(cache);
    decoder?.dispose();
    if (head && model.ownsOutputHead) head.dispose();
  }
  return out;
}

/** [B, width] key mask: 1 for real tokens so far, 0 for left padding and for positions not generated yet. */
function maskTensor(mask: number[][], width: number): tf.Tensor2D {
  const m = new Float32Array(mask.length * width);
  mask.forEach((row, b) => m.set(row.slice(0, width), b * width));
  return tf.tensor2d(m, [mask.length, width]);
}

function hitsStopString(tokens: number[], opts: SampleOptions): boolean {
  if (!opts.stopStrings?.length || !opts.decode) return false;
  const text = opts.decode(tokens.slice(-32));
  return opts.stopStrings.some((s) => text.includes(s));
}
