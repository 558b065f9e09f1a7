import { test } from "node:test";
import assert from "node:assert/strict";
import { sharedState } from "./divergence";

test("messages before the divergence are shared by all, then by some, then unique to the sample", () => {
  const d = { divergesAt: 2, uniqueFrom: 4 };
  assert.deepEqual(
    [0, 1, 2, 3, 4, 9].map((i) => sharedState(i, d)),
    ["all", "all", "some", "some", "unique", "unique"],
  );
});

test("a sample identical to everyone is all shared; a duplicated sample is never unique", () => {
  assert.equal(sharedState(7, { divergesAt: null, uniqueFrom: null }), "all");
  assert.equal(sharedState(7, { divergesAt: 2, uniqueFrom: null }), "some");
});
