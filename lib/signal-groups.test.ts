import { test } from "node:test";
import assert from "node:assert/strict";
import type { Signal } from "./reward-signals";
import { formatStepRanges, groupSignals, toStepRanges } from "./signal-groups";

const drift = (step: number): Signal => ({
  kind: "length_drift",
  step,
  title: "Response length drifted sharply",
  detail: `at ${step}`,
  examples: [],
});

test("thousands of warnings become one group per kind with step ranges and only the latest in full", () => {
  const steps = [...Array.from({ length: 5000 }, (_, i) => i * 2), 10_001, 10_002, 10_003];
  const signals: Signal[] = [
    ...steps.map(drift),
    { kind: "abnormal_ending", step: 7, title: "Episodes ended early or abnormally", detail: "x", examples: ["t1"] },
  ];
  const groups = groupSignals(signals);
  assert.deepEqual(
    groups.map((g) => [g.kind, g.count]),
    [
      ["length_drift", 5003],
      ["abnormal_ending", 1],
    ],
  );
  const [d] = groups;
  assert.deepEqual(
    d.latest.map((s) => s.step),
    [10_003, 10_002, 10_001],
  );
  assert.equal(d.stepRanges.length, 12, "capped");
  assert.deepEqual(d.stepRanges[d.stepRanges.length - 1], [10_001, 10_003], "consecutive steps merge");
  assert.equal(d.rangesOmitted, 5001 - 12);
  assert.ok(JSON.stringify(groups).length < 5000, "a small answer however long the run");
});

test("step ranges read as a reader writes them", () => {
  assert.deepEqual(toStepRanges([5, 3, 4, 9, 12, 11]), [
    [3, 5],
    [9, 9],
    [11, 12],
  ]);
  assert.equal(
    formatStepRanges([
      [3, 5],
      [9, 9],
      [11_000, 12_500],
    ]),
    "3–5, 9, 11,000–12,500",
  );
});
