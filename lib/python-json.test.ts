/**
 * Python's float repr, round(x, 2) and json.dumps, checked against what python3 printed for the same values
 * (tests/fixtures/parity/python-json.json, made by scripts/parity/python_json_cases.py).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseJsonKeepingKeyOrder, stringifyKeepingKeyOrder } from "./ordered-json";
import { pythonFloatRepr, pythonJsonDumps, pythonRound, pythonStringLiteral, type PyModel } from "./python-json";

const cases = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../tests/fixtures/parity/python-json.json"), "utf8")) as {
  floats: number[];
  repr: string[];
  round2: string[];
  round_wide: [number, number, string][];
  strings: string[];
  dumped: string[];
  nested: { value: unknown; sorted: string };
};

test("floats print as Python prints them: 54.0, 1e-05, 1e+16, shortest digits", () => {
  const wrong = cases.floats.map((x, i) => [cases.repr[i], pythonFloatRepr(x)]).filter(([want, got]) => want !== got);
  assert.deepEqual(wrong, [], `${wrong.length} of ${cases.floats.length} differ`);
});

test("round(x, 2) is Python's: the exact binary value rounded, ties to even (2.675 → 2.67, 0.125 → 0.12)", () => {
  const wrong = cases.floats
    .map((x, i) => [x, cases.round2[i], pythonFloatRepr(pythonRound(x, 2))])
    .filter(([, want, got]) => want !== got);
  assert.deepEqual(wrong, [], `${wrong.length} of ${cases.floats.length} differ`);
  assert.notEqual(pythonRound(2.675, 2), Math.round(2.675 * 100) / 100, "the naive rounding differs on this one");
});

test("round(x, n) for any n Python takes: to tens and beyond (n < 0, 25.0 → 20.0), and past 100 places", () => {
  const wrong = cases.round_wide.filter(([x, n, want]) => pythonFloatRepr(pythonRound(x, n)) !== want);
  assert.deepEqual(wrong, [], `${wrong.length} of ${cases.round_wide.length} differ`);
  assert.ok(cases.round_wide.length > 300);
});

test("strings are escaped as json.dumps escapes them (ensure_ascii): quotes, controls, accents, emoji", () => {
  assert.deepEqual(
    cases.strings.map((x) => pythonStringLiteral(x)),
    cases.dumped,
  );
});

test("a model dumps its declared fields in order (unset ones as null), floats as floats; sort_keys sorts", () => {
  const Item: PyModel = {
    name: "Item",
    fields: [
      ["name", "str"],
      ["price", "float"],
      ["count", "int"],
      ["note", { optional: "str" }],
    ],
  };
  assert.equal(
    pythonJsonDumps({ price: 100, name: "Lamp", count: 2 }, { model: Item }),
    '{"name": "Lamp", "price": 100.0, "count": 2, "note": null}',
  );
  assert.equal(
    pythonJsonDumps({ price: 1, name: "é", count: 0 }, { model: Item }, { sortKeys: true }),
    '{"count": 0, "name": "\\u00e9", "note": null, "price": 1.0}',
  );
  assert.equal(pythonJsonDumps(cases.nested.value, "any", { sortKeys: true }), cases.nested.sorted);
});

test("integer-like keys keep the source order through parse, dump and stringify (JavaScript would sort them first)", () => {
  const text = '{"3616838507": {"a": 1}, "1151293680": {"a": 2}, "12": {"a": 3}, "name": "x"}';
  const parsed = parseJsonKeepingKeyOrder(text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(parsed), ["12", "1151293680", "3616838507", "name"], "JavaScript's own order");
  assert.equal(pythonJsonDumps(parsed, "any"), '{"3616838507": {"a": 1}, "1151293680": {"a": 2}, "12": {"a": 3}, "name": "x"}');
  assert.deepEqual(Object.keys(JSON.parse(stringifyKeepingKeyOrder(parsed))), Object.keys(parsed));
  assert.match(stringifyKeepingKeyOrder(parsed), /^\{\n "3616838507"/);
  assert.throws(() => parseJsonKeepingKeyOrder('{"a": 1,}'), SyntaxError);
  assert.throws(() => parseJsonKeepingKeyOrder('{"a": 1} x'), /Unexpected data after JSON/);
});
