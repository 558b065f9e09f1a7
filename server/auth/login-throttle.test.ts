import { test } from "node:test";
import assert from "node:assert/strict";
import { LoginThrottle, type Admission } from "./login-throttle";

const CONFIG = { perClient: { perMinute: 6, burst: 5 }, overall: { perMinute: 60, burst: 20 }, maxWaitMs: 30_000 };

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** One attempt that waits its turn and then fails (a wrong guess). */
function fail(throttle: LoginThrottle, client: string): Admission {
  const a = throttle.admit(client);
  if (a.ok) a.settle(false);
  return a;
}

test("a burst of wrong guesses is answered at once, then each further attempt waits its turn", () => {
  const t = clock();
  const throttle = new LoginThrottle(CONFIG, t.now);
  const waits = Array.from({ length: 7 }, () => fail(throttle, "guesser").waitMs);
  assert.deepEqual(waits, [0, 0, 0, 0, 0, 10_000, 20_000]);
});

test("a slow stream of wrong guesses never keeps the owner out: the right password waits at most two intervals", () => {
  const t = clock();
  const throttle = new LoginThrottle(CONFIG, t.now);
  for (let i = 0; i < 5; i++) fail(throttle, "shared-ip");
  let worst = 0;
  // An hour of one guess every 10 s (the refill rate), from the owner's own address; the owner tries every 7 minutes.
  for (let second = 0; second < 3600; second++) {
    t.advance(1000);
    if (second % 10 === 0) fail(throttle, "shared-ip");
    if (second % 420 === 211) {
      const owner = throttle.admit("shared-ip");
      assert.ok(owner.ok, `refused at ${second} s`);
      worst = Math.max(worst, owner.waitMs);
      owner.settle(true);
    }
  }
  assert.ok(worst > 0 && worst <= 20_000, `the owner waited ${worst} ms`);
});

test("a correct password clears its client's record and gives back its slot; wrong ones keep theirs", () => {
  const t = clock();
  const throttle = new LoginThrottle(CONFIG, t.now);
  for (let i = 0; i < 6; i++) fail(throttle, "me");
  const ok = throttle.admit("me");
  assert.ok(ok.ok && ok.waitMs > 0);
  ok.settle(true);
  assert.equal(throttle.admit("me").waitMs, 0, "signed in: the next attempt does not wait");
});

test("attempts that would wait longer than maxWaitMs are refused with Retry-After; many forged clients share the overall limit", () => {
  const t = clock();
  const throttle = new LoginThrottle(CONFIG, t.now);
  const flood = Array.from({ length: 10 }, () => throttle.admit("flood"));
  assert.deepEqual(
    flood.map((a) => a.ok),
    [true, true, true, true, true, true, true, true, false, false],
  );
  const refused = flood[8];
  assert.ok(!refused.ok && refused.retryAfterSeconds === 10);

  const spread = new LoginThrottle(CONFIG, clock().now);
  const waits = Array.from({ length: 60 }, (_, i) => fail(spread, `203.0.113.${i}`));
  assert.equal(waits.filter((a) => a.ok && a.waitMs === 0).length, 20, "the overall burst");
  assert.equal(waits[30].waitMs, 11_000, "then one attempt per second over all clients");
  assert.ok(!waits[59].ok, "and no attempt is held for more than 30 s");
});
