import { test } from "node:test";
import assert from "node:assert/strict";
import { TokenBucketLimiter } from "./rate-limit";

test("a token gets its burst, then 429s with a Retry-After until the bucket refills", () => {
  let now = 0;
  const limiter = new TokenBucketLimiter({ perMinute: 60, burst: 3 }, () => now);
  assert.deepEqual(
    [1, 2, 3].map(() => limiter.take("a").ok),
    [true, true, true],
  );
  const denied = limiter.take("a");
  assert.equal(denied.ok, false);
  assert.equal(!denied.ok && denied.retryAfterSeconds, 1, "one request per second at 60/min");
  assert.equal(limiter.take("b").ok, true, "buckets are per token");
  now += 1000;
  assert.equal(limiter.take("a").ok, true, "refilled after Retry-After");
  assert.equal(limiter.take("a").ok, false);
});

test("a slow refill reports the whole wait in seconds", () => {
  let now = 0;
  const limiter = new TokenBucketLimiter({ perMinute: 2, burst: 1 }, () => now);
  assert.equal(limiter.take("a").ok, true);
  const denied = limiter.take("a");
  assert.equal(!denied.ok && denied.retryAfterSeconds, 30);
  now += 29_000;
  assert.equal(limiter.take("a").ok, false);
  now += 1_000;
  assert.equal(limiter.take("a").ok, true);
});
