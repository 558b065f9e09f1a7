/**
 * gorilla's square_root returns Python's Decimal root: tests/fixtures/parity/python-decimal-sqrt.json holds what
 * python3's decimal module printed for `Decimal(number).sqrt()` at each precision
 * (scripts/parity/python_decimal_sqrt_cases.py).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { decimalSqrt } from "./decimal-sqrt";

const { cases } = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, "../../../../tests/fixtures/parity/python-decimal-sqrt.json"), "utf8"),
) as { cases: [number, number, string][] };

test("Decimal(x).sqrt() at every precision is Python's: exact roots at their ideal exponent (1E+1), half-even rounding", () => {
  const wrong = cases.filter(([x, precision, want]) => decimalSqrt(x, precision) !== want);
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${cases.length} differ`);
  assert.ok(cases.length > 300);
  assert.equal(decimalSqrt(100, 1), "1E+1");
  assert.equal(decimalSqrt(3.75, 1), "2");
});
