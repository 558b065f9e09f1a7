/**
 * Per-token rate limiting: a token bucket per key, in this process's memory (one web server per deployment here;
 * several replicas would each allow the full rate). A bucket holds `burst` requests and refills at `perMinute`;
 * an empty bucket answers with the seconds until one request is available again (the Retry-After header).
 */
import { readEnvVar } from "../../lib/env";
export interface RateLimitConfig {
  perMinute: number;
  burst: number;
}

export type RateDecision = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class TokenBucketLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly config: RateLimitConfig,
    private readonly now: () => number = Date.now,
  ) {}

  take(key: string): RateDecision {
    const t = this.now();
    const ratePerMs = this.config.perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: this.config.burst, updatedAt: t };
    bucket.tokens = Math.min(this.config.burst, bucket.tokens + (t - bucket.updatedAt) * ratePerMs);
    bucket.updatedAt = t;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true, remaining: Math.floor(bucket.tokens) };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerMs / 1000)) };
  }
}

/** API_RATE_LIMIT_PER_MINUTE (default 600) and API_RATE_LIMIT_BURST (default 120): a polling CLI uses ~30/min. */
export function rateLimitFromEnv(): RateLimitConfig {
  return { perMinute: readEnvVar("API_RATE_LIMIT_PER_MINUTE") ?? 600, burst: readEnvVar("API_RATE_LIMIT_BURST") ?? 120 };
}
