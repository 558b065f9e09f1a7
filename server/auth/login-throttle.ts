/**
 * Throttling of dashboard sign-in attempts that slows guessing without ever shutting the owner out. A limiter that
 * answers 429 once a bucket is empty let a slow stream of wrong guesses keep the right password out for good.
 * Here an attempt over the limit is not refused but scheduled: it waits for its slot (a generic cell rate
 * algorithm per client and over all clients), and only a wait longer than `maxWaitMs` is refused. Only failures
 * keep their slot: a correct password gives its slot back and clears its client's record. So guesses are bounded
 * by the rates, and behind a guesser who keeps to the rate the owner waits at most two intervals (20 s).
 *
 * The overall schedule bounds a guesser spread over many addresses, but a flood of them filled it and then held
 * the owner's correct password back with everyone else's (a 429 before the password was read). So only addresses
 * that failed within `suspectForMs` wait in the overall schedule; an address with no recent failure (the owner's,
 * as a rule) has its password checked at once, and a wrong one still takes its slot there. A spread guesser gains
 * one unthrottled guess per address per `suspectForMs`.
 *
 * The per-client key is the client's address as server/http/client-address.ts resolves it: the socket's peer, or
 * for a configured proxy (ROLLOUT_LAB_TRUSTED_PROXIES) the right-most hop it does not vouch for.
 */
import type { RateLimitConfig } from "./rate-limit";

export interface LoginThrottleConfig {
  perClient: RateLimitConfig;
  overall: RateLimitConfig;
  /** Longest an attempt is held before it is refused with a 429 instead. */
  maxWaitMs: number;
  /** How long a failed attempt makes its address wait in the overall schedule too (default 15 minutes). */
  suspectForMs?: number;
}

export type Admission =
  { ok: true; waitMs: number; settle(succeeded: boolean): void } | { ok: false; retryAfterSeconds: number; waitMs: number };

const OVERALL = "\u0000overall";
/** Each address makes a record: past this many, the expired ones are dropped. */
const MAX_TRACKED_CLIENTS = 10_000;
/**
 * Addresses remembered as having failed recently. When more than this many failed within `suspectForMs` (a flood
 * from more addresses than that), an address not remembered is treated as suspect too: memory stays bounded and
 * the flood still meets the overall schedule.
 */
const MAX_SUSPECTS = 50_000;
const DEFAULT_SUSPECT_MS = 15 * 60_000;

export class LoginThrottle {
  /** Theoretical arrival time per key: the schedule's next free slot, shifted back by the burst allowance. */
  private readonly tat = new Map<string, number>();
  /** When each address last failed (insertion order = order of last failure). */
  private readonly lastFailure = new Map<string, number>();

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

  private suspectForMs(): number {
    return this.config.suspectForMs ?? DEFAULT_SUSPECT_MS;
  }

  /** Did `client` fail recently (or are there too many recent failures to remember them all)? */
  private suspect(client: string, t: number): boolean {
    const last = this.lastFailure.get(client);
    if (last !== undefined && t - last < this.suspectForMs()) return true;
    if (this.lastFailure.size >= MAX_SUSPECTS) this.forgetOldFailures(t);
    return this.lastFailure.size >= MAX_SUSPECTS;
  }

  private forgetOldFailures(t: number): void {
    for (const [key, at] of this.lastFailure) {
      if (t - at < this.suspectForMs()) break; // in order of last failure: the rest are newer
      this.lastFailure.delete(key);
    }
  }

  /** Reserves a slot for one attempt from `client`; the caller waits `waitMs`, checks, then settles. */
  admit(client: string): Admission {
    const t = this.now();
    if (this.tat.size > MAX_TRACKED_CLIENTS) this.prune();
    const ownWait = this.waitFor(client, this.config.perClient, t);
    const waitMs = this.suspect(client, t) ? Math.max(ownWait, this.waitFor(OVERALL, this.config.overall, t)) : ownWait;
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
        if (settled) return;
        settled = true;
        if (!succeeded) {
          this.lastFailure.delete(client); // re-inserted last: the map stays in order of last failure
          this.lastFailure.set(client, this.now());
          return;
        }
        this.lastFailure.delete(client);
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
