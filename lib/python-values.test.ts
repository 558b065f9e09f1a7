/**
 * Python's str.strip(), float() and json.loads as python3 computes them (tests/fixtures/parity/python-values.json,
 * made by scripts/parity/python_values_cases.py): the readings Simia-RL's and agent_gym's rewards hang on.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { pythonFloat, pythonJsonLoads, pythonSplit, pythonStrip } from "./python-values";

type Plain = unknown;
const cases = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../tests/fixtures/parity/python-values.json"), "utf8")) as {
  strip: [string, string][];
  float: [unknown, { value?: Plain; error?: string }][];
  loads: [string, { value?: Plain; error?: true }][];
};
/** The fixture's {"float": "NaN"} markers back to numbers. */
const revive = (v: Plain): Plain =>
  v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 1 && "float" in v
    ? Number((v as { float: string }).float)
    : Array.isArray(v)
      ? v.map(revive)
      : v && typeof v === "object"
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, revive(x)]))
        : v;

test("strip() removes what Python's does: U+001C–U+001F and U+0085 too, but not U+FEFF or U+200B", () => {
  for (const [input, want] of cases.strip) assert.equal(pythonStrip(input), want, JSON.stringify(input));
});

test("float() reads what Python's does: underscores, inf and nan, surrounding space; the rest is a ValueError or TypeError", () => {
  for (const [input, want] of cases.float) {
    const got = pythonFloat(input);
    if (want.error) assert.ok(!got.ok && got.error.startsWith(want.error), `${JSON.stringify(input)}: ${JSON.stringify(got)}`);
    else
      assert.ok(
        got.ok && Object.is(got.value, revive(want.value)),
        `${JSON.stringify(input)}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`,
      );
  }
});

test("json.loads accepts NaN and ±Infinity outside strings, and fails where Python fails", () => {
  for (const [input, want] of cases.loads) {
    const got = pythonJsonLoads(input);
    if (want.error) assert.equal(got, null, JSON.stringify(input));
    else assert.deepEqual(got?.value, revive(want.value), JSON.stringify(input));
  }
});

test("pythonSplit splits as str.split() does: Python's whitespace, not JavaScript's", () => {
  assert.deepEqual(pythonSplit("  a\tb\nc  "), ["a", "b", "c"]);
  assert.deepEqual(pythonSplit("a\x1fb\x85c\u3000d"), ["a", "b", "c", "d"], "U+001F and NEL split in Python");
  assert.deepEqual(pythonSplit("a\u200bb \ufeffc"), ["a\u200bb", "\ufeffc"], "zero-width space and BOM do not");
  assert.deepEqual(pythonSplit("   "), []);
});
