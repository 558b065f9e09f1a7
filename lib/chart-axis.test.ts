import { test } from "node:test";
import assert from "node:assert/strict";
import { formatTick, yAxisFor } from "./chart-axis";

const labels = (values: number[]) => {
  const axis = yAxisFor(values)!;
  return axis.ticks.map((t) => formatTick(t, axis.decimals));
};

test("tick labels are distinct: a reward between 0.15 and 0.16 no longer reads 0.15 five times", () => {
  const l = labels([0.151, 0.153, 0.158, 0.1555]);
  assert.equal(new Set(l).size, l.length, l.join(" "));
  assert.ok(l.length >= 3 && l.length <= 7, l.join(" "));
});

test("a constant zero series sits on 0 … 1; a constant series on ±10%", () => {
  assert.deepEqual(yAxisFor([0, 0, 0])!.domain, [0, 1]);
  const axis = yAxisFor([210, 210])!;
  assert.ok(axis.domain[0] <= 189 && axis.domain[1] >= 231, JSON.stringify(axis));
  assert.ok(axis.domain[1] - axis.domain[0] <= 60, "not a wild range");
});

test("float noise on a near-constant series is not magnified into spikes", () => {
  const axis = yAxisFor([1, 1 + 1e-9, 1 - 1e-9])!;
  assert.ok(axis.domain[1] - axis.domain[0] >= 0.02, JSON.stringify(axis.domain));
});

test("the frame covers the data and ignores gaps; no data gives no axis", () => {
  const axis = yAxisFor([-0.3, null, 2.4, undefined, 1])!;
  assert.ok(axis.domain[0] <= -0.3 && axis.domain[1] >= 2.4);
  assert.equal(yAxisFor([null, NaN]), null);
  assert.equal(formatTick(0.00001, 5), "1.0e-5");
});
