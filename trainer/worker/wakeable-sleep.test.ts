import assert from "node:assert/strict";
import { test } from "node:test";
import { WakeableSleep } from "./wakeable-sleep";

test("wake() ends a long sleep at once, and a later sleep still waits its time", async () => {
  const pause = new WakeableSleep();
  const started = Date.now();
  const sleeping = pause.sleep(60_000);
  setTimeout(() => pause.wake(), 20);
  await sleeping;
  assert.ok(Date.now() - started < 5_000, "the 60 s sleep ended when woken");

  pause.wake(); // nobody sleeping: nothing to end, and nothing remembered
  const again = Date.now();
  await pause.sleep(50);
  assert.ok(Date.now() - again >= 45, "a wake before the sleep does not cut the next sleep short");
});
