import { test } from "node:test";
import assert from "node:assert/strict";
import { axisWidthFor, formatStep, formatTick, formatValue, stepTicks, yAxisFor } from "./chart-axis";
import { formatTimestamp, timeAxisFor } from "./chart-time-axis";

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
  assert.equal(formatTick(0.00001, 5), "1e-5");
});

test("a 100k-step axis ticks at round steps with short labels, not 255 / 25255 / 50255", () => {
  const ticks = stepTicks(255, 100_254);
  assert.deepEqual(ticks, [20_000, 40_000, 60_000, 80_000, 100_254], "the last step ends the axis; 100k, 254 short of it, gives way");
  assert.deepEqual(ticks.map(formatStep), ["20k", "40k", "60k", "80k", "100k"]);
  assert.deepEqual(stepTicks(0, 39).map(formatStep), ["0", "10", "20", "30", "39"]);
  assert.equal(formatStep(2500), "2,500");
  assert.deepEqual(stepTicks(7, 7), [7]);
});

test("a mean advantage of float noise reads 0, on a 0 … 1 frame, with labels that fit their axis", () => {
  const noise = [-2.78e-17, 1.2e-17, 0, 5e-18];
  assert.equal(formatValue(-2.78e-17), "0");
  const axis = yAxisFor(noise)!;
  assert.deepEqual(axis.domain, [0, 1]);
  // A genuinely tiny range keeps distinct, short labels instead of 0.0000002 clipped to "0000000".
  const tiny = yAxisFor([1e-7, 3e-7, 9e-7])!;
  const labels = tiny.ticks.map((t) => formatTick(t, tiny.decimals));
  assert.equal(new Set(labels).size, labels.length, labels.join(" "));
  assert.ok(
    labels.every((l) => l.length <= 6),
    labels.join(" "),
  );
  assert.ok(axisWidthFor(labels) >= labels.reduce((n, l) => Math.max(n, l.length), 0) * 6, "the axis is wide enough");
});

test("large values use SI suffixes, captions three significant digits", () => {
  const axis = yAxisFor([12_000, 48_000])!;
  assert.deepEqual(
    axis.ticks.map((t) => formatTick(t, axis.decimals)),
    ["10k", "20k", "30k", "40k", "50k"],
  );
  assert.equal(formatValue(1_234_567), "1.23M");
  assert.equal(formatValue(0.15678), "0.157");
  assert.equal(formatValue(0.00012), "1.2e-4");
  assert.equal(formatValue(null), "—");
});

test("the last tick is the last step: a 200-step run (steps 0-199) no longer stops at 150", () => {
  assert.deepEqual(stepTicks(0, 199), [0, 50, 100, 150, 199]);
  assert.deepEqual(stepTicks(0, 101), [0, 50, 101], "100, one step short, gives way to 101");
  assert.deepEqual(stepTicks(0, 100), [0, 20, 40, 60, 80, 100]);
});

test("a 9-minute run's wall-time axis has at least 4 ticks on round minutes", () => {
  const start = new Date(2026, 9, 1, 14, 3, 20).getTime();
  const axis = timeAxisFor(start, start + 9 * 60_000);
  assert.ok(axis.ticks.length >= 4 && axis.ticks.length <= 6, axis.ticks.map(axis.format).join(" "));
  assert.ok(axis.ticks.every((t) => new Date(t).getSeconds() === 0));
  const threeMinutes = timeAxisFor(start, start + 3 * 60_000);
  assert.ok(threeMinutes.ticks.length >= 3, threeMinutes.ticks.map(threeMinutes.format).join(" "));
});

test("a wall-time axis over days shows dates; within a day, times; the tooltip always both", () => {
  const start = new Date(2026, 9, 1, 9, 30).getTime();
  const days = timeAxisFor(start, start + 35 * 86_400_000);
  assert.ok(days.ticks.length >= 3 && days.ticks.length <= 6, String(days.ticks.length));
  for (const t of days.ticks) assert.match(days.format(t), /^[A-Z][a-z]{2} \d{1,2}$/);
  assert.equal(new Set(days.ticks.map(days.format)).size, days.ticks.length);
  const hours = timeAxisFor(start, start + 3 * 3_600_000);
  for (const t of hours.ticks) assert.match(hours.format(t), /^\d{2}:\d{2}$/);
  // Round local times: every tick on the hour or half hour.
  assert.ok(
    hours.ticks.every((t) => new Date(t).getMinutes() % 30 === 0),
    hours.ticks.map(hours.format).join(" "),
  );
  const twoDays = timeAxisFor(start, start + 2 * 86_400_000);
  assert.match(twoDays.format(twoDays.ticks[0]), /^[A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}$/);
  assert.match(formatTimestamp(start), /Oct 1, 2026/);
});
