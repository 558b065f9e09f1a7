/**
 * When to retry an LLM request and how long to wait. Mirrors what the OpenAI SDKs do internally (408/409/429/5xx
 * and connection errors are retryable; `retry-after-ms` then `retry-after` are honoured) — we turn the SDK's own
 * retries off so that every attempt is visible and recorded.
 */
export interface RetryTiming {
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

export function isRetryableStatus(status: number | undefined): boolean {
  if (status === undefined) return true; // connection error, timeout, cut body
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Server-requested wait in ms from `retry-after-ms` or `retry-after` (delta-seconds or an HTTP date), if any. */
export function parseRetryAfterMs(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | null {
  if (!headers) return null;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const v = Number(ms);
    if (Number.isFinite(v) && v >= 0) return v;
  }
  const ra = headers.get("retry-after");
  if (ra === null || ra.trim() === "") return null;
  const seconds = Number(ra);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
  const date = Date.parse(ra);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/**
 * Delay before attempt `attempt + 1` (attempt is 1-based). Exponential backoff with "equal jitter" (half fixed,
 * half random) so that 128 episodes hit by the same 429 do not retry in lockstep.
 */
export function backoffDelayMs(
  attempt: number,
  timing: RetryTiming,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, timing.maxRetryAfterMs);
  const exp = Math.min(timing.maxDelayMs, timing.baseDelayMs * 2 ** (attempt - 1));
  return exp / 2 + random() * (exp / 2);
}
