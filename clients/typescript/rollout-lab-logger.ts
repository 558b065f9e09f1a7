/**
 * Stream a run trained elsewhere into Rollout Lab while it trains (TypeScript / Node ≥ 18, no dependencies: copy the
 * file). The same calls as clients/python/rollout_lab_logger.py; see docs/import.md for the sample shape.
 *
 *   const rl = new RolloutLabLogger("http://127.0.0.1:3000", process.env.ROLLOUT_LAB_TOKEN!);
 *   await rl.createRun({ name: "my run", source: "other" });
 *   await rl.logStep(0, { "reward/mean": 0.3 });
 *   await rl.logSamples([{ id: "0-0", step: 0, group: "p0", reward: 1, conversation: [...] }]);
 *   await rl.finish();
 */
const RETRY_STATUS = new Set([429, 502, 503, 504]);

export class RolloutLabError extends Error {}

export class RolloutLabLogger {
  runId: string | null = null;
  runUrl: string | null = null;
  private readonly base: string;

  constructor(
    url: string,
    private readonly token: string,
    private readonly retries = 5,
  ) {
    this.base = `${url.replace(/\/+$/, "")}/api/v1`;
  }

  private async post<T>(path: string, body: unknown, idempotencyKey?: string): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(this.base + path, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${this.token}`,
            ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
          },
          body: JSON.stringify(body),
        });
      } catch (err) {
        if (attempt >= this.retries) throw err;
        await new Promise((r) => setTimeout(r, Math.min(1000 * 2 ** attempt, 10_000)));
        continue;
      }
      if (RETRY_STATUS.has(res.status) && attempt < this.retries) {
        await res.body?.cancel();
        await new Promise((r) => setTimeout(r, Math.min(1000 * 2 ** attempt, 10_000)));
        continue;
      }
      const json = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
      if (!res.ok) throw new RolloutLabError(`${path} ${res.status}: ${json.error?.message ?? res.statusText}`);
      return json as T;
    }
  }

  private runPath(suffix: string): string {
    if (!this.runId) throw new RolloutLabError("call createRun() first");
    return `/external-runs/${encodeURIComponent(this.runId)}/${suffix}`;
  }

  async createRun(run: {
    name: string;
    source: string;
    config?: Record<string, unknown>;
    policyModel?: string;
    environment?: string;
    tags?: string[];
    totalSteps?: number;
  }) {
    const created = await this.post<{ id: string; url: string }>("/external-runs", run, crypto.randomUUID());
    this.runId = created.id;
    this.runUrl = created.url;
    return created.id;
  }

  async logStep(step: number, metrics: Record<string, number>) {
    const finite = Object.fromEntries(Object.entries(metrics).filter(([, v]) => Number.isFinite(v)));
    if (Object.keys(finite).length) await this.post(this.runPath("steps"), { steps: [{ step, metrics: finite }] });
  }

  /** Samples with your own unique `id` each (a retry never duplicates), sent 200 at a time. */
  async logSamples(samples: Record<string, unknown>[]) {
    let stored = 0;
    let skipped = 0;
    for (let i = 0; i < samples.length; i += 200) {
      const r = await this.post<{ stored: number; skipped: number }>(this.runPath("trajectories"), {
        trajectories: samples.slice(i, i + 200),
      });
      stored += r.stored;
      skipped += r.skipped;
    }
    return { stored, skipped };
  }

  async finish(status: "succeeded" | "failed" | "cancelled" = "succeeded", error?: string) {
    return this.post(this.runPath("finish"), { status, ...(error ? { error: error.slice(0, 2000) } : {}) });
  }
}
