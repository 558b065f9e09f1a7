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

test("attempts that would wait longer than maxWaitMs are refused with Retry-After; addresses that failed share the overall limit", () => {
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
  const addresses = Array.from({ length: 60 }, (_, i) => `203.0.113.${i}`);
  const first = addresses.map((a) => fail(spread, a));
  assert.ok(
    first.every((a) => a.ok && a.waitMs === 0),
    "an address's first attempt is checked at once, but takes its overall slot",
  );
  const second = addresses.map((a) => fail(spread, a));
  assert.equal(second.filter((a) => a.ok).length, 0, "60 slots taken: a second guess from each would wait over 30 s, so it is refused");
});

test("a correct password from an address with no recent failure is checked before the overall schedule, however full", () => {
  const t = clock();
  const throttle = new LoginThrottle(CONFIG, t.now);
  // A guesser spread over 200 addresses, each trying until refused: the overall schedule is full for minutes.
  for (let i = 0; i < 200; i++) for (let k = 0; k < 3; k++) fail(throttle, `203.0.113.${i}`);
  assert.ok(!throttle.admit("203.0.113.7").ok, "the guessing addresses are refused");
  t.advance(1000);
  const owner = throttle.admit("198.51.100.7");
  assert.ok(owner.ok && owner.waitMs === 0, "the owner's address has not failed: checked at once");
  owner.settle(true);

  // An owner who mistyped a moment ago waits in the overall schedule like any address that failed.
  const typo = throttle.admit("198.51.100.8");
  assert.ok(typo.ok);
  typo.settle(false);
  assert.ok(!throttle.admit("198.51.100.8").ok, "refused while the schedule is full");
  // After the suspect period the record is forgotten.
  t.advance(15 * 60_000 + 1);
  assert.equal(throttle.admit("198.51.100.8").waitMs, 0);
});
