/**
 * A policy that calls a Python built-in as a tool gets what gorilla's and EnvTuning's executors give it (they eval
 * the call): tests/fixtures/parity/python-builtins.json, made by scripts/parity/python_builtins_cases.py with python3.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { BfclRuntime } from "./runtime";
import { parsePythonCalls } from "./call-syntax";

const cases = JSON.parse(readFileSync(new URL("../../../tests/fixtures/parity/python-builtins.json", import.meta.url), "utf8")) as {
  call: string;
  result: string;
}[];

test("round, print, str, len and abs called as tools answer as Python's eval does, errors included", () => {
  for (const messages of ["gorilla", "envtuning"] as const) {
    const runtime = new BfclRuntime(["MathAPI"], {}, { longContext: false, messages });
    const differ = cases.flatMap(({ call, result }) => {
      const got = runtime.execute(parsePythonCalls(call)[0]).result;
      return got === result ? [] : [`${messages} ${call}: python ${JSON.stringify(result)} | ours ${JSON.stringify(got)}`];
    });
    assert.deepEqual(differ, [], `${cases.length - differ.length} of ${cases.length} as python3`);
  }
});
