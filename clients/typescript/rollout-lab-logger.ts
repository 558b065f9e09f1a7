/**
 * Stream a run trained elsewhere into Rollout Lab while it trains (TypeScript / Node ≥ 18, no dependencies: copy the
 * file). The same calls as clients/python/rollout_lab_logger.py; see docs/import.md for the sample shape.
 *
 * Logging never blocks or breaks the training loop: logStep() and logSamples() queue the data (bounded memory) and
 * return at once; it is sent in the background in batches (by count and by bytes), retried with backoff on network
 * errors, 429 and 5xx, and a refusal or an unreachable server is a warning, never an exception. flush() and finish()
 * wait for the queue, which is also flushed when Node's event loop empties.
 *
 *   const rl = new RolloutLabLogger("http://127.0.0.1:3000", process.env.ROLLOUT_LAB_TOKEN!);
 *   await rl.createRun({ name: "my run", source: "other", runKey: "my-run-v2", resume: "allow" });
 *   for (let step = rl.startStep; step < steps; step++) {
 *     rl.logStep(step, { "reward/mean": 0.3, "rewards/all": rewards });   // a Float32Array → /mean, /min, /max
 *     rl.logSamples([{ id: `${step}-0`, step, group: "p0", reward: 1, conversation: [...] }]);
 *   }
 *   await rl.finish();
 */
const MAX_SAMPLES_PER_BATCH = 200;
const MAX_STEPS_PER_BATCH = 1000;

export class RolloutLabError extends Error {}

export interface LoggerOptions {
  /** Memory for data waiting to be sent; beyond it new data is dropped, with a warning (default 64 MiB). */
  maxQueueBytes?: number;
  /** One request's body (default 700,000 bytes, under the API's 1 MiB). */
  batchBytes?: number;
  flushIntervalMs?: number;
  /** How long a batch that keeps failing is retried before it is given up (default 10 minutes). */
  retryForMs?: number;
  maxBackoffMs?: number;
  timeoutMs?: number;
  warn?: (message: string) => void;
}

export interface LoggerStats {
  stored: number;
  updated: number;
  unchanged: number;
  points: number;
  dropped: number;
  failedRequests: number;
}

type Kind = "steps" | "trajectories";
type Reply = { status: number | null; body: Record<string, unknown> };
const RETRY = (status: number | null) => status === null || status === 429 || status >= 500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** JSON-ready values: bigint → number, typed arrays → arrays, NaN and infinities → null (a NaN reward: unscored). */
export function plain(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number | bigint>, plain);
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === "object" && !(value instanceof Date))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** A step's metrics as numbers: arrays become key/mean, key/min and key/max; null/NaN are left out. */
export function metricPoints(metrics: Record<string, unknown>): { points: Record<string, number>; refused: string[] } {
  const points: Record<string, number> = {};
  const refused: string[] = [];
  for (const [key, raw] of Object.entries(metrics)) {
    const value = plain(typeof raw === "boolean" ? Number(raw) : raw);
    if (value === null || value === undefined) continue;
    if (typeof value === "number") points[key] = value;
    else if (Array.isArray(value)) {
      const nums = (value.flat(Infinity) as unknown[]).filter((v): v is number => typeof v === "number");
      if (nums.length === 1) points[key] = nums[0];
      else if (nums.length > 1) {
        points[`${key}/mean`] = nums.reduce((a, b) => a + b, 0) / nums.length;
        points[`${key}/min`] = Math.min(...nums);
        points[`${key}/max`] = Math.max(...nums);
      }
    } else refused.push(key);
  }
  return { points, refused };
}

export class RolloutLabLogger {
  runId: string | null = null;
  runUrl: string | null = null;
  resumed = false;
  /** Steps the run already has: where a resumed trainer continues. */
  startStep = 0;
  readonly stats: LoggerStats = { stored: 0, updated: 0, unchanged: 0, points: 0, dropped: 0, failedRequests: 0 };
  private readonly base: string;
  private readonly opts: Required<LoggerOptions>;
  private readonly queue: Record<Kind, string[]> = { steps: [], trajectories: [] };
  private queuedBytes = 0;
  private pumping: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly warned = new Set<string>();

  constructor(
    url: string,
    private readonly token: string,
    options: LoggerOptions = {},
  ) {
    this.base = `${url.replace(/\/+$/, "")}/api/v1`;
    this.opts = {
      maxQueueBytes: 64 * 1024 * 1024,
      batchBytes: 700_000,
      flushIntervalMs: 2000,
      retryForMs: 600_000,
      maxBackoffMs: 30_000,
      timeoutMs: 30_000,
      warn: (m) => console.warn(`[rollout-lab] ${m}`),
      ...options,
    };
    // Node: send what is still queued when the program has nothing else to do (the timers here do not hold it open).
    if (typeof process !== "undefined" && typeof process.once === "function") process.once("beforeExit", () => void this.flush());
  }

  /** Creates the run (or, with runKey and resume "allow"/"must", reattaches to it); throws RolloutLabError when refused. */
  async createRun(run: {
    name: string;
    source: string;
    config?: Record<string, unknown>;
    policyModel?: string;
    environment?: string;
    tags?: string[];
    totalSteps?: number;
    runKey?: string;
    resume?: "never" | "allow" | "must";
    staleAfterSeconds?: number;
  }): Promise<string> {
    return this.attach(await this.request("/external-runs", plain(run), crypto.randomUUID()));
  }

  /** Reattaches to a run by id (stale, failed, cancelled or finished): it runs again and accepts data. */
  async resumeRun(runId: string): Promise<string> {
    return this.attach(await this.request(`/external-runs/${encodeURIComponent(runId)}/resume`, {}));
  }

  private attach(run: Record<string, unknown>): string {
    this.runId = String(run.id);
    this.runUrl = String(run.url);
    this.resumed = run.resumed === true;
    this.startStep = typeof run.step === "number" ? run.step : 0;
    return this.runId;
  }

  logStep(step: number, metrics: Record<string, unknown>): void {
    try {
      const { points, refused } = metricPoints(metrics);
      for (const key of refused) this.warnOnce(`metric:${key}`, `metric "${key}" is not a number or an array of numbers; it is not logged`);
      if (Object.keys(points).length) this.put("steps", { step: Number(step), metrics: points });
    } catch (err) {
      this.warnOnce("logStep", `logStep failed (${(err as Error).message}); the step is not logged`);
    }
  }

  /** Samples with your own unique `id` each; re-sent with new content they replace the stored one. */
  logSamples(samples: Record<string, unknown>[]): void {
    for (const sample of samples) {
      try {
        this.put("trajectories", plain(sample));
      } catch (err) {
        this.warnOnce("logSamples", `a sample could not be encoded (${(err as Error).message}); it is not logged`);
      }
    }
  }

  private put(kind: Kind, item: unknown) {
    if (!this.runId) return this.warnOnce("no-run", "call createRun() (or resumeRun()) first; data before it is not logged");
    const text = JSON.stringify(item);
    const size = Buffer.byteLength(text);
    if (this.queuedBytes + size > this.opts.maxQueueBytes) {
      this.stats.dropped++;
      return this.warnOnce(
        "full",
        `the send queue is full (${this.opts.maxQueueBytes} bytes; the server is slow or unreachable): new data is dropped until it drains`,
      );
    }
    this.queue[kind].push(text);
    this.queuedBytes += size;
    if (this.batchReady()) void this.pump();
    else this.timer ??= unref(setTimeout(() => void this.pump(), this.opts.flushIntervalMs));
  }

  private batchReady(): boolean {
    return (
      this.queuedBytes >= this.opts.batchBytes ||
      this.queue.steps.length >= MAX_STEPS_PER_BATCH ||
      this.queue.trajectories.length >= MAX_SAMPLES_PER_BATCH
    );
  }

  /** Waits until everything queued so far was sent (or given up); returns the stats. */
  async flush(): Promise<LoggerStats> {
    while (this.queuedBytes > 0 || this.pumping) await this.pump();
    return { ...this.stats };
  }

  /** Sends what is queued, then marks the run finished. Never throws; returns the stats. */
  async finish(status: "succeeded" | "failed" | "cancelled" = "succeeded", error?: string): Promise<LoggerStats> {
    if (!this.runId) return { ...this.stats };
    await this.flush();
    try {
      await this.request(`/external-runs/${encodeURIComponent(this.runId)}/finish`, {
        status,
        ...(error ? { error: error.slice(0, 2000) } : {}),
      });
    } catch (err) {
      this.opts.warn(`could not mark the run ${status}: ${(err as Error).message}`);
    }
    return { ...this.stats };
  }

  private pump(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pumping ??= (async () => {
      try {
        while (this.queuedBytes > 0) for (const kind of ["steps", "trajectories"] as const) await this.send(kind, this.take(kind));
      } finally {
        this.pumping = null;
      }
    })();
    return this.pumping;
  }

  private take(kind: Kind): string[] {
    const limit = kind === "steps" ? MAX_STEPS_PER_BATCH : MAX_SAMPLES_PER_BATCH;
    const queue = this.queue[kind];
    let n = 0;
    let size = 0;
    while (n < queue.length && n < limit && (n === 0 || size + Buffer.byteLength(queue[n]) <= this.opts.batchBytes))
      size += Buffer.byteLength(queue[n++]);
    this.queuedBytes -= size;
    return queue.splice(0, n);
  }

  private async send(kind: Kind, items: string[]): Promise<void> {
    const path = `/external-runs/${encodeURIComponent(this.runId!)}/${kind}`;
    const started = Date.now();
    for (let attempt = 0; items.length;) {
      const { status, body } = await this.post(path, `{"${kind}":[${items.join(",")}]}`);
      if (status === 200) {
        for (const key of ["stored", "updated", "unchanged", "points"] as const) this.stats[key] += Number(body[key] ?? 0);
        return;
      }
      if (RETRY(status)) {
        this.stats.failedRequests++;
        if (Date.now() - started > this.opts.retryForMs) {
          this.stats.dropped += items.length;
          return this.opts.warn(
            `the server has not answered for ${Math.round((Date.now() - started) / 1000)} s (${String(body.message)}); ${items.length} ${kind} were dropped`,
          );
        }
        const retryAfter = Number(body.retryAfter) * 1000;
        await sleep(retryAfter > 0 ? retryAfter : Math.min(this.opts.maxBackoffMs, 500 * 2 ** attempt++) * (0.5 + Math.random()));
        continue;
      }
      items = await this.withoutRefused(kind, items, status!, body);
    }
  }

  /** After a 4xx: drops the item the server named and keeps the rest, halves a too-large batch, else gives it up. */
  private async withoutRefused(kind: Kind, items: string[], status: number, body: Record<string, unknown>): Promise<string[]> {
    const message = String(body.message ?? `HTTP ${status}`);
    if (status === 413 && items.length > 1) {
      const half = Math.floor(items.length / 2);
      await this.send(kind, items.slice(0, half));
      return items.slice(half);
    }
    const index = new RegExp(`^${kind}\\.(\\d+)`).exec(String(body.field ?? ""));
    if (status === 400 && index && Number(index[1]) < items.length) {
      this.stats.dropped++;
      this.opts.warn(`refused one of the ${kind} (${message}); the rest is sent`);
      return items.filter((_, i) => i !== Number(index[1]));
    }
    this.stats.dropped += items.length;
    this.opts.warn(`${items.length} ${kind} were refused: HTTP ${status}: ${message}`);
    return [];
  }

  /** One POST: its status (null for a network error) and body (an error body's message and field). */
  private async post(path: string, body: string, idempotencyKey?: string): Promise<Reply> {
    try {
      const res = await fetch(this.base + path, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${this.token}`,
          ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
        },
        body,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      const json = (await res.json().catch(() => ({}))) as Record<string, unknown> & { error?: Record<string, unknown> };
      const reply = res.ok ? json : { message: res.statusText, ...json.error, retryAfter: res.headers.get("retry-after") };
      return { status: res.status, body: reply };
    } catch (err) {
      return { status: null, body: { message: `cannot reach ${this.base}: ${(err as Error).message}` } };
    }
  }

  /** create / resume / finish: retried like the rest (for at most a minute), then a RolloutLabError. */
  private async request(path: string, body: unknown, idempotencyKey?: string): Promise<Record<string, unknown>> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      const reply = await this.post(path, JSON.stringify(body), idempotencyKey);
      if (reply.status === 200 || reply.status === 201) return reply.body;
      if (RETRY(reply.status) && Date.now() - started < Math.min(this.opts.retryForMs, 60_000)) {
        await sleep(Math.min(this.opts.maxBackoffMs, 500 * 2 ** attempt));
        continue;
      }
      throw new RolloutLabError(`${path} ${reply.status ?? "network error"}: ${String(reply.body.message)}`);
    }
  }

  private warnOnce(key: string, message: string) {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.opts.warn(message);
  }
}

function unref<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
