import { test } from "node:test";
import assert from "node:assert/strict";
import { backoffDelayMs, isRetryableStatus, parseRetryAfterMs } from "./retry-policy";
import { Semaphore } from "./semaphore";

const h = (entries: Record<string, string>) => new Headers(entries);

test("retry-after is read as ms, delta-seconds or an HTTP date", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  assert.equal(parseRetryAfterMs(h({ "retry-after-ms": "250", "retry-after": "9" }), now), 250);
  assert.equal(parseRetryAfterMs(h({ "retry-after": "2" }), now), 2000);
  assert.equal(parseRetryAfterMs(h({ "retry-after": "0.5" }), now), 500);
  assert.equal(parseRetryAfterMs(h({ "retry-after": "Wed, 01 Jan 2025 00:00:03 GMT" }), now), 3000);
  assert.equal(parseRetryAfterMs(h({ "retry-after": "Tue, 31 Dec 2024 00:00:00 GMT" }), now), 0, "a past date means retry now");
  assert.equal(parseRetryAfterMs(h({ "retry-after": "soon" }), now), null);
  assert.equal(parseRetryAfterMs(h({}), now), null);
});

test("408/409/429/5xx and connection errors retry; other 4xx do not", () => {
  assert.deepEqual([408, 409, 429, 500, 503, undefined].map(isRetryableStatus), [true, true, true, true, true, true]);
  assert.deepEqual([400, 401, 403, 404, 422].map(isRetryableStatus), [false, false, false, false, false]);
});

test("backoff grows exponentially with bounded jitter and honours (capped) retry-after", () => {
  const timing = { baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };
  assert.equal(
    backoffDelayMs(1, timing, null, () => 0),
    50,
  );
  assert.equal(
    backoffDelayMs(1, timing, null, () => 1),
    100,
  );
  assert.equal(
    backoffDelayMs(3, timing, null, () => 1),
    400,
  );
  assert.equal(
    backoffDelayMs(10, timing, null, () => 1),
    1000,
    "capped at maxDelayMs",
  );
  assert.equal(
    backoffDelayMs(1, timing, 2000, () => 0),
    2000,
  );
  assert.equal(
    backoffDelayMs(1, timing, 60_000, () => 0),
    5000,
    "a huge retry-after is capped",
  );
});

test("the semaphore admits at most `capacity` holders, in FIFO order", async () => {
  const sem = new Semaphore(2);
  const order: number[] = [];
  let peak = 0;
  await Promise.all(
    [0, 1, 2, 3, 4].map((i) =>
      sem.run(async () => {
        peak = Math.max(peak, sem.inFlight);
        order.push(i);
        await new Promise((r) => setTimeout(r, 5));
      }),
    ),
  );
  assert.equal(peak, 2);
  assert.deepEqual(order, [0, 1, 2, 3, 4]);
});
