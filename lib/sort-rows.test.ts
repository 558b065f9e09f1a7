import { test } from "node:test";
import assert from "node:assert/strict";
import { sortRows } from "./sort-rows";

test("rows sort by a column in either direction with missing values last, and the input is left as it was", () => {
  const rows = [
    { n: "b", v: 2 },
    { n: "a", v: null },
    { n: "c", v: 10 },
    { n: "d", v: Number.NaN },
    { n: "e", v: -1 },
  ];
  assert.deepEqual(
    sortRows(rows, (r) => r.v, "desc").map((r) => r.n),
    ["c", "b", "e", "a", "d"],
  );
  assert.deepEqual(
    sortRows(rows, (r) => r.v, "asc").map((r) => r.n),
    ["e", "b", "c", "a", "d"],
  );
  assert.deepEqual(
    sortRows(rows, (r) => r.n, "asc").map((r) => r.n),
    ["a", "b", "c", "d", "e"],
  );
  assert.deepEqual(
    rows.map((r) => r.n),
    ["b", "a", "c", "d", "e"],
  );
});
