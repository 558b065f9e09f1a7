/**
 * pythonLiteralEval reads what python3's ast.literal_eval reads, and fails where it raises
 * (tests/fixtures/parity/python-literal.json, made by scripts/parity/python_literal_cases.py).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { pythonLiteralEval } from "./python-literal";

const cases = JSON.parse(readFileSync(new URL("../tests/fixtures/parity/python-literal.json", import.meta.url), "utf8")) as [
  string,
  { value?: unknown; error?: boolean },
][];

test("literal_eval: Python dicts, tuples, True/None and trailing commas read; JSON's true/null and prose do not", () => {
  const differ: string[] = [];
  for (const [input, want] of cases) {
    const got = pythonLiteralEval(input);
    if (want.error ? got !== null : got === null || JSON.stringify(got.value) !== JSON.stringify(want.value))
      differ.push(`${JSON.stringify(input)}: python ${JSON.stringify(want)} | ours ${JSON.stringify(got)}`);
  }
  assert.deepEqual(differ, [], `${cases.length - differ.length} of ${cases.length} as python3`);
});
