/**
 * Throttling of dashboard sign-in attempts that slows guessing without ever shutting the owner out. A limiter that
 * answers 429 once a bucket is empty let a slow stream of wrong guesses keep the right password out for good.
 * Here an attempt over the limit is not refused but scheduled: it waits for its slot (a generic cell rate
 * algorithm per client and over all clients), and only a wait longer than `maxWaitMs` is refused. Only failures
 * keep their slot: a correct password gives its slot back and clears its client's record. So guesses are bounded
 * by the rates, and behind a guesser who keeps to the rate the owner waits at most two intervals (20 s).
 *
 * The per-client key comes from X-Forwarded-For (Next fills it with the socket's address when absent), which a
 * client can forge: the overall schedule is what bounds a distributed guesser.
 */
import type { RateLimitConfig } from "./rate-limit";

export interface LoginThrottleConfig {
  perClient: RateLimitConfig;
  overall: RateLimitConfig;
  /** Longest an attempt is held before it is refused with a 429 instead. */
  maxWaitMs: number;
}

export type Admission =
  { ok: true; waitMs: number; settle(succeeded: boolean): void } | { ok: false; retryAfterSeconds: number; waitMs: number };

const OVERALL = "\u0000overall";
/** Forged X-Forwarded-For values each make a record: past this many, the expired ones are dropped. */
const MAX_TRACKED_CLIENTS = 10_000;

export class LoginThrottle {
  /** Theoretical arrival time per key: the schedule's next free slot, shifted back by the burst allowance. */
  private readonly tat = new Map<string, number>();

  constructor(
    readonly config: LoginThrottleConfig,
    private readonly now: () => number = Date.now,
  ) {}

  private interval(limit: RateLimitConfig): number {
    return 60_000 / limit.perMinute;
  }

  private waitFor(key: string, limit: RateLimitConfig, t: number): number {
    const tat = Math.max(this.tat.get(key) ?? t, t);
    return Math.max(0, tat - (limit.burst - 1) * this.interval(limit) - t);
  }

  /** Reserves a slot for one attempt from `client`; the caller waits `waitMs`, checks, then settles. */
  admit(client: string): Admission {
    const t = this.now();
    if (this.tat.size > MAX_TRACKED_CLIENTS) this.prune();
    const waitMs = Math.max(this.waitFor(client, this.config.perClient, t), this.waitFor(OVERALL, this.config.overall, t));
    if (waitMs > this.config.maxWaitMs) {
      return { ok: false, waitMs, retryAfterSeconds: Math.max(1, Math.ceil((waitMs - this.config.maxWaitMs) / 1000)) };
    }
    const reserve = (key: string, limit: RateLimitConfig) => this.tat.set(key, Math.max(this.tat.get(key) ?? t, t) + this.interval(limit));
    reserve(client, this.config.perClient);
    reserve(OVERALL, this.config.overall);
    let settled = false;
    return {
      ok: true,
      waitMs,
      settle: (succeeded) => {
        if (settled || !succeeded) return;
        settled = true;
        this.tat.delete(client);
        const overall = this.tat.get(OVERALL);
        if (overall !== undefined) this.tat.set(OVERALL, overall - this.interval(this.config.overall));
      },
    };
  }

  /** Forget clients whose schedule is in the past (their record would allow a full burst anyway). */
  prune(): void {
    const t = this.now();
    for (const [key, tat] of this.tat) if (key !== OVERALL && tat <= t) this.tat.delete(key);
  }
}
