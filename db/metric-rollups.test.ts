import { test } from "node:test";
import assert from "node:assert/strict";
import { chooseRollupWidth } from "./metric-rollups";

test("long series read the coarsest rollup that still fills the chart; short ones read points", () => {
  assert.equal(chooseRollupWidth(100_000, 400), 256, "100k steps → 391 buckets of 256");
  assert.equal(chooseRollupWidth(1_000_000, 400), 4096);
  assert.equal(chooseRollupWidth(3_000, 400), null, "3k steps: group the points directly");
  assert.equal(chooseRollupWidth(10_000, 400), 16);
});
