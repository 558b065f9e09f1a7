/**
 * Continuous batching for the policy, as rollout engines (vLLM in verl / SkyRL) do it: episodes ask for one turn
 * each, and requests waiting at the same time are decoded together in one batched KV-cache generation. Without it
 * every episode of a group samples at batch 1, one after another, which on the reference decoder is ~10x fewer
 * tokens per second than batch 16 (bench:trainer). One batch decodes at a time; it yields to the event loop after
 * every token (the worker's heartbeats must keep running), and requests arriving meanwhile wait for the next batch.
 *
 * A batch is flushed when every live episode is waiting for the policy (nothing else could join), when it is full,
 * or `maxWaitMs` after its first request (episodes held up by a slow simulator LLM call must not stall the rest).
 * Each request brings its own Rng, so what a prompt samples does not depend on which batch it landed in — up to
 * float rounding: batched and padded matMuls round differently, which can flip a near-tie. Batch composition follows
 * timing (LLM simulator latency), so runs with real simulator endpoints are reproducible only up to that.
 *
 * An episode samples through a session (`open()`), which keeps its sequence's keys and values between turns
 * (prefix-cache.ts): each turn then runs only the tokens added since the last one, not the whole conversation.
 */
import type { DecoderLM } from "./model";
import type { Rng } from "./rng";
import { generateYielding, type Sample, type SampleOptions } from "./sampling";
import { disposePrefix, reusableLength, type PrefixCache } from "./prefix-cache";
import { fusedOpsAvailable } from "./fused";

/** Attention probabilities one batched prefill may hold (the wasm heap is 4 GiB in all). */
const PREFILL_BUDGET_BYTES = 2 ** 30;

export interface BatchedSamplerOptions extends Omit<SampleOptions, "rng"> {
  /** Most prompts decoded together (bounds KV-cache memory). */
  maxBatch?: number;
  /** Longest a request waits for others to join its batch. */
  maxWaitMs?: number;
  /**
   * Most bytes of keys and values kept between turns for all open sessions together (default 256 MiB); past it the
   * largest caches are dropped and their episodes' next turns run their whole prompt. 0 turns prefix caching off.
   */
  prefixCacheBytes?: number;
}

/** A turn and the number of prompts decoded together with it (1 = alone). */
export type BatchedSample = Sample & { batchSize: number };

interface Pending {
  prompt: number[];
  rng: Rng;
  session?: SamplerSession;
  resolve(s: BatchedSample): void;
  reject(e: unknown): void;
}

export interface SamplerStats {
  batches: number;
  requests: number;
  /** Mean prompts per generate call. */
  meanBatch: number;
  /** Prompt tokens sampled from, and how many of them came from a session's cache instead of being run. */
  promptTokens: number;
  reusedTokens: number;
}

/** One episode's turns: its prompts are sampled with the keys and values its previous turns left. */
export class SamplerSession {
  /** @internal the sampler's */
  prefix: PrefixCache | undefined;
  private closed = false;

  constructor(private readonly sampler: BatchedSampler) {}

  /** The next turn for `prompt` (token ids), sampled with the episode's own generator. */
  sample(prompt: number[], rng: Rng): Promise<BatchedSample> {
    if (this.closed) return Promise.reject(new Error("sampling on a closed session"));
    return this.sampler.request(prompt, rng, this);
  }

  /** The episode ended (any way): its cache is freed and the sampler no longer waits for it. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.sampler.forget(this);
    this.sampler.leave();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

export class BatchedSampler {
  private queue: Pending[] = [];
  private live = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private scheduled = false;
  private decoding = false;
  private batches = 0;
  private requests = 0;
  private promptTokens = 0;
  private reusedTokens = 0;
  /** Open sessions holding a cache, oldest first (the byte budget drops the largest). */
  private readonly cached = new Set<SamplerSession>();

  constructor(
    private readonly model: DecoderLM,
    private readonly opts: BatchedSamplerOptions,
  ) {}

  /** An episode started: the sampler waits for it (up to maxWaitMs) before flushing a batch. */
  enter(): void {
    this.live++;
  }

  /** An episode ended (any way): the sampler no longer waits for it. */
  leave(): void {
    this.live = Math.max(0, this.live - 1);
    this.maybeFlush();
  }

  /** A session for one episode (counts as entered until it is closed). */
  open(): SamplerSession {
    this.enter();
    return new SamplerSession(this);
  }

  /** The next turn for `prompt` (token ids), sampled with the episode's own generator (no prefix cache). */
  sample(prompt: number[], rng: Rng): Promise<BatchedSample> {
    return this.request(prompt, rng);
  }

  /** @internal a session's request; with a session its cache is used and refreshed. */
  request(prompt: number[], rng: Rng, session?: SamplerSession): Promise<BatchedSample> {
    return new Promise<BatchedSample>((resolve, reject) => {
      this.queue.push({ prompt, rng, session, resolve, reject });
      this.requests++;
      this.timer ??= setTimeout(() => void this.flush(), this.opts.maxWaitMs ?? 20);
      this.maybeFlush();
    });
  }

  /** @internal drops a session's cache. */
  forget(session: SamplerSession): void {
    disposePrefix(session.prefix);
    session.prefix = undefined;
    this.cached.delete(session);
  }

  private get cacheBudget(): number {
    return this.opts.prefixCacheBytes ?? 256 * 2 ** 20;
  }

  /** Stores each session's new cache (the old one is replaced), then drops the largest ones past the budget. */
  private keep(batch: Pending[], samples: Sample[]): void {
    batch.forEach((p, i) => {
      const s = p.session;
      const prefix = samples[i].prefix;
      if (!s || s.isClosed || this.cacheBudget <= 0) return disposePrefix(prefix);
      this.forget(s);
      s.prefix = prefix;
      if (prefix) this.cached.add(s);
    });
    let total = [...this.cached].reduce((sum, s) => sum + (s.prefix?.bytes ?? 0), 0);
    while (total > this.cacheBudget) {
      const largest = [...this.cached].reduce((a, b) => ((b.prefix?.bytes ?? 0) > (a.prefix?.bytes ?? 0) ? b : a));
      total -= largest.prefix?.bytes ?? 0;
      this.forget(largest);
    }
  }

  private account(batch: Pending[], samples: Sample[]): void {
    batch.forEach((p, i) => {
      this.promptTokens += p.prompt.length;
      this.reusedTokens += samples[i].reusedTokens;
    });
  }

  private async sampleAlone(p: Pending): Promise<void> {
    try {
      const [sample] = await generateYielding(this.model, [p.prompt], { ...this.opts, rng: p.rng });
      this.account([p], [sample]);
      p.resolve({ ...sample, batchSize: 1 });
    } catch (e) {
      p.reject(e);
    }
  }

  /**
   * How many queued prompts to decode together: at most maxBatch, and no more than the prefill's attention
   * probabilities (layers × heads × T × T floats per prompt, alive until the pass ends) fit in its budget — long
   * prompts (thousands of byte tokens) would otherwise exceed the 4 GiB heap together.
   */
  private batchThatFits(): number {
    const { numLayers, numHeads } = this.model.config;
    const fused = fusedOpsAvailable();
    let n = 0;
    let longest = 0;
    let fresh = 0;
    for (const p of this.queue.slice(0, this.opts.maxBatch ?? 64)) {
      longest = Math.max(longest, p.prompt.length);
      // the prefill's queries are only the tokens no cache holds; they attend over the whole sequence
      fresh = Math.max(fresh, p.prompt.length - reusableLength(p.session?.prefix, p.prompt, fused));
      if (n > 0 && (n + 1) * numLayers * numHeads * fresh * longest * 4 > PREFILL_BUDGET_BYTES) break;
      n++;
    }
    return n;
  }

  stats(): SamplerStats {
    return {
      batches: this.batches,
      requests: this.requests,
      meanBatch: this.batches ? this.requests / this.batches : 0,
      promptTokens: this.promptTokens,
      reusedTokens: this.reusedTokens,
    };
  }

  /**
   * Flushes once every live episode is queued or the batch is full. Deferred with setImmediate so episodes whose
   * promises resolve in the same turn of the event loop (offline simulators, cached calls) all join first.
   */
  private maybeFlush(): void {
    const full = this.queue.length >= (this.opts.maxBatch ?? 64);
    if (this.scheduled || this.queue.length === 0 || (!full && this.queue.length < this.live)) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.decoding) return; // the batch in progress flushes again when it ends
    const batch = this.queue.splice(0, this.batchThatFits());
    if (batch.length === 0) return;
    this.batches++;
    this.decoding = true;
    try {
      const caching = this.cacheBudget > 0;
      const samples = await generateYielding(
        this.model,
        batch.map((p) => p.prompt),
        {
          ...this.opts,
          rng: batch.map((p) => p.rng),
          prefixes: caching ? batch.map((p) => p.session?.prefix) : undefined,
          keepPrefix: caching && batch.some((p) => p.session !== undefined),
        },
      );
      this.keep(batch, samples);
      this.account(batch, samples);
      batch.forEach((p, i) => {
        const { prefix: _kept, ...sample } = samples[i];
        p.resolve({ ...sample, batchSize: batch.length });
      });
    } catch (e) {
      // one bad request (a prompt past the context, an id outside the vocabulary) must not fail its batch-mates:
      // each is retried alone, without its cache, so only the culprit gets the error. Generators are untouched by a
      // failed batch (generation validates before drawing).
      for (const p of batch) if (p.session) this.forget(p.session);
      if (batch.length === 1) batch[0].reject(e);
      else for (const p of batch) await this.sampleAlone(p);
    } finally {
      this.decoding = false;
    }
    if (this.queue.length && !this.timer) this.timer = setTimeout(() => void this.flush(), this.opts.maxWaitMs ?? 20);
    this.maybeFlush();
  }
}
