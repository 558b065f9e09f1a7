import { test } from "node:test";
import assert from "node:assert/strict";
import { overlayRows } from "./overlay-rows";

test("series logged at different steps merge onto one row per step, each keeping its own value, band and count", () => {
  const rows = overlayRows([
    {
      points: [
        { step: 0, value: 1 },
        { step: 2, value: 3 },
      ],
    },
    {
      points: [
        { step: 2, value: 5, band: [4, 6], n: 2 },
        { step: 1, value: 7, band: null, n: 1 },
      ],
    },
  ]);
  assert.deepEqual(rows, [
    { step: 0, v0: 1 },
    { step: 1, v1: 7, b1: null, n1: 1 },
    { step: 2, v0: 3, v1: 5, b1: [4, 6], n1: 2 },
  ]);
  assert.deepEqual(overlayRows([{ points: [] }]), []);
});
