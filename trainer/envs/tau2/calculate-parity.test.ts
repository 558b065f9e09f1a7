/** τ²'s `calculate` tool: every expression's output as τ²'s Python printed it (tests/fixtures/parity/python-json.json). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { forkDb, type RetailDb } from "./retail-db";
import { runRetailTool } from "./retail-tools";

const { calculate } = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, "../../../tests/fixtures/parity/python-json.json"), "utf8"),
) as {
  calculate: [string, string][];
};

test("calculate answers as τ²'s does: Python arithmetic and rounding, Python's error messages", () => {
  const db = forkDb({ users: {}, orders: {}, products: {} } as RetailDb);
  const wrong = calculate
    .map(([expr, want]) => [expr, want, runRetailTool(db, "calculate", { expression: expr }).content])
    .filter(([, want, got]) => want !== got);
  assert.deepEqual(wrong, [], `${wrong.length} of ${calculate.length} differ`);
  assert.ok(
    calculate.some(([e, out]) => e === "7//2" && out === "3.0"),
    "floor division is covered",
  );
});
