import { test } from "node:test";
import assert from "node:assert/strict";
import { ALL_IN_ONE, aggregateRuns, allButSeed, finalValues, groupRuns, sampleStd, spread, stepGrid } from "./run-groups";

const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-12, `${what}: ${a} vs ${b}`);

// Four runs: two learning rates × two seeds, as the compare page's config diff gives them.
const runIds = ["a", "b", "c", "d"];
const rows = [
  { path: "seed", values: ["1", "2", "1", "2"] },
  { path: "grpo.learningRate", values: ["0.001", "0.001", "0.0001", "0.0001"] },
  { path: "policy.model", values: ['"tiny"', '"tiny"', '"tiny"', null] },
];

test("runs sharing the chosen settings form one group each, labelled by those settings, in first-run order", () => {
  assert.deepEqual(groupRuns(runIds, rows, ["grpo.learningRate"]), [
    { label: "grpo.learningRate=0.001", runIds: ["a", "b"] },
    { label: "grpo.learningRate=0.0001", runIds: ["c", "d"] },
  ]);
  // A string shows without quotes, a missing setting as "absent"; two paths split on both.
  assert.deepEqual(
    groupRuns(runIds, rows, ["grpo.learningRate", "policy.model"]).map((g) => [g.label, g.runIds]),
    [
      ["grpo.learningRate=0.001 · policy.model=tiny", ["a", "b"]],
      ["grpo.learningRate=0.0001 · policy.model=tiny", ["c"]],
      ["grpo.learningRate=0.0001 · policy.model=absent", ["d"]],
    ],
  );
  // A setting every run shares (not in the diff) cannot split them.
  assert.deepEqual(groupRuns(runIds, rows, ["grpo.groupSize"]), [{ label: "all runs", runIds }]);
});

test("pooling the seeds groups by every differing setting except the seed, the name and the tags", () => {
  const withNoise = [
    ...rows,
    { path: "tags.0", values: ['"x"', null, null, null] },
    { path: "environmentOptions.seed", values: ["1", "2", "3", "4"] },
  ];
  assert.deepEqual(allButSeed(withNoise), ["grpo.learningRate", "policy.model"]);
});

test("the band is the sample standard deviation (n − 1), its standard error, or the min–max", () => {
  close(sampleStd([1, 2, 3, 4]), Math.sqrt(5 / 3), "std of 1..4");
  const std = spread([1, 2, 3, 4], "std")!;
  close(std[0], 2.5 - Math.sqrt(5 / 3), "low");
  close(std[1], 2.5 + Math.sqrt(5 / 3), "high");
  const sem = spread([1, 2, 3, 4], "sem")!;
  close(sem[1] - 2.5, Math.sqrt(5 / 3) / 2, "std error");
  assert.deepEqual(spread([3, 1, 2], "minmax"), [1, 3]);
  assert.equal(spread([7], "std"), null, "one run has no spread");
});

test("a group's curve averages the runs that logged each step and counts them; a run that stopped early stops counting", () => {
  const a = [0, 1, 2, 3].map((step) => ({ step, value: step }));
  const b = [0, 1].map((step) => ({ step, value: step + 2 }));
  const curve = aggregateRuns([a, b], "std");
  assert.deepEqual(
    curve.map((p) => [p.step, p.mean, p.n]),
    [
      [0, 1, 2],
      [1, 2, 2],
      [2, 2, 1],
      [3, 3, 1],
    ],
  );
  close(curve[0].band![1] - curve[0].mean, Math.SQRT2, "std of 0 and 2");
  assert.equal(curve[2].band, null, "a step only one run reached has no band");
});

test("past maxBuckets steps, runs are averaged per equal step bucket, each point at its bucket's centre", () => {
  const a = Array.from({ length: 100 }, (_, step) => ({ step, value: 1 }));
  const b = Array.from({ length: 100 }, (_, step) => ({ step, value: 3 }));
  const grid = stepGrid([a, b], 10)!;
  assert.deepEqual(grid, { exact: false, first: 0, width: 10 });
  const curve = aggregateRuns([a, b], "minmax", grid);
  assert.equal(curve.length, 10);
  assert.ok(curve.every((p) => p.n === 2 && p.mean === 2));
  assert.deepEqual(curve[0].band, [1, 3]);
  assert.equal(curve[0].step, 4.5, "bucket 0 holds steps 0–9");
  // non-finite values never reach a mean
  assert.deepEqual(aggregateRuns([[{ step: 0, value: Number.NaN }], [{ step: 0, value: 2 }]], "std"), [
    { step: 0, mean: 2, band: null, n: 1 },
  ]);
});

test("runs logged on different grids meet in buckets as wide as the coarsest spacing, not alternating one run and two", () => {
  const every = Array.from({ length: 20 }, (_, step) => ({ step, value: 0 }));
  const everyOther = Array.from({ length: 10 }, (_, i) => ({ step: 2 * i + 1, value: 10 }));
  const grid = stepGrid([every, everyOther])!;
  assert.equal(grid.width, 2);
  const curve = aggregateRuns([every, everyOther], "std", grid);
  assert.equal(curve.length, 10);
  assert.ok(
    curve.every((p) => p.n === 2 && p.mean === 5),
    JSON.stringify(curve.slice(0, 3)),
  );
  assert.deepEqual(
    curve.slice(0, 2).map((p) => p.step),
    [0.5, 2.5],
  );
  // Runs of one grid but different lengths keep their exact steps.
  const short = [0, 1, 2].map((step) => ({ step, value: 1 }));
  assert.deepEqual(stepGrid([every, short]), { exact: true, first: 0, width: 1 });
});

test("two groups share their x positions (one grid over every run drawn), so a tooltip compares them", () => {
  const g1 = [Array.from({ length: 50 }, (_, i) => ({ step: 3 * i, value: 1 }))];
  const g2 = [Array.from({ length: 40 }, (_, i) => ({ step: 4 * i + 1, value: 2 }))];
  const grid = stepGrid([...g1, ...g2], 30)!;
  const xs1 = aggregateRuns(g1, "std", grid).map((p) => p.step);
  const xs2 = aggregateRuns(g2, "std", grid).map((p) => p.step);
  assert.ok(xs1.length > 10);
  assert.deepEqual(
    xs1.filter((x) => !xs2.includes(x)),
    [],
    "every x of the first group is one of the second's",
  );
});

test("N seeds of one config (nothing else differs) pool into one group", () => {
  const seedsOnly = [{ path: "seed", values: ["1", "2", "3"] }];
  assert.deepEqual(allButSeed(seedsOnly), []);
  assert.deepEqual(groupRuns(["a", "b", "c"], seedsOnly, [ALL_IN_ONE]), [{ label: "all runs", runIds: ["a", "b", "c"] }]);
});

test("the final figure is each run's last value, averaged over the group with its band", () => {
  const fin = finalValues(
    [
      [
        { step: 0, value: 0 },
        { step: 9, value: 0.6 },
      ],
      [{ step: 4, value: 0.4 }],
      [],
    ],
    "std",
  )!;
  assert.equal(fin.n, 2);
  assert.deepEqual(fin.steps, [4, 9], "the runs' last values were logged at different steps");
  close(fin.mean, 0.5, "mean of last values");
  close(fin.band![1] - 0.5, sampleStd([0.6, 0.4]), "std of last values");
  assert.equal(finalValues([[], []], "std"), null);
  // A run whose last value is not finite counts its last finite one.
  assert.equal(
    finalValues(
      [
        [
          { step: 0, value: 2 },
          { step: 1, value: Number.NaN },
        ],
      ],
      "std",
    )!.mean,
    2,
  );
});
