/**
 * A short-lived cache of successful GET responses with request coalescing ("single flight"): concurrent requests
 * for the same key wait for one computation, and for `ttlMs` afterwards get a copy of its answer. Only 200s are
 * kept; errors are recomputed each time. Bounded by `maxEntries` (oldest dropped first).
 */
interface Entry {
  at: number;
  response: Promise<{ status: number; headers: [string, string][]; body: ArrayBuffer }>;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 2000,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string, compute: () => Promise<Response>): Promise<Response> {
    const t = this.now();
    let entry = this.entries.get(key);
    if (!entry || t - entry.at > this.ttlMs) {
      entry = {
        at: t,
        response: compute().then(async (res) => ({
          status: res.status,
          headers: [...res.headers.entries()],
          body: await res.arrayBuffer(),
        })),
      };
      this.entries.set(key, entry);
      this.evict();
      const mine = entry;
      // Failures and non-200s are not kept: the next request computes again.
      mine.response.then(
        (r) => r.status !== 200 && this.entries.get(key) === mine && this.entries.delete(key),
        () => this.entries.get(key) === mine && this.entries.delete(key),
      );
    }
    const r = await entry.response;
    return new Response(r.body.slice(0), { status: r.status, headers: r.headers });
  }

  clear(): void {
    this.entries.clear();
  }

  private evict(): void {
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }
}
