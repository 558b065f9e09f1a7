import { test } from "node:test";
import assert from "node:assert/strict";
import { groupMetricKeys, smoothSeries } from "./smoothing";

test("debiased EMA starts at the first value and follows a constant exactly", () => {
  const s = smoothSeries([2, 2, 2], 0.9);
  for (const v of s) assert.ok(Math.abs((v as number) - 2) < 1e-12);
  const t = smoothSeries([0, 10], 0.5) as number[];
  assert.equal(t[0], 0);
  assert.ok(Math.abs(t[1] - (10 * 0.5) / 0.75) < 1e-12);
});

test("gaps stay gaps; weight 0 is the raw series", () => {
  assert.deepEqual(
    smoothSeries([1, null, 3], 0.5).map((v) => v === null),
    [false, true, false],
  );
  assert.deepEqual(smoothSeries([1, 5], 0), [1, 5]);
});

test("metric keys are grouped reward first, then the rest in a fixed order", () => {
  const groups = groupMetricKeys(["time/update_s", "kl", "reward/std", "reward/invalid", "reward/mean", "llm/judge/calls", "custom/x"]);
  assert.deepEqual(
    groups.map((g) => g.group),
    ["reward", "kl", "llm", "time", "custom"],
  );
  assert.deepEqual(groups[0].keys, ["reward/mean", "reward/std", "reward/invalid"], "the mean leads its namespace");
});

test("a missing stretch of steps becomes a gap, regular strides do not", async () => {
  const { insertGaps } = await import("./smoothing");
  const pts = [0, 1, 2, 3, 10, 11].map((step) => ({ step, v: step as number | null }));
  const out = insertGaps(pts, (step) => ({ step, v: null }));
  assert.deepEqual(
    out.map((p) => p.v === null),
    [false, false, false, false, true, false, false],
  );
  const every5 = [0, 5, 10, 15].map((step) => ({ step, v: 1 as number | null }));
  assert.equal(insertGaps(every5, (step) => ({ step, v: null })).length, 4);
});
