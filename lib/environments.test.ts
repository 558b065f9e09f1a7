/**
 * The catalog's promises about its presets: docs/benchmarks.md's `npm run bench:learn` table (what each launch
 * preset learns on a CPU, which the preset's comment points to) has a row for every environment of the catalog.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ENVIRONMENT_NAMES } from "./environments";

test("docs/benchmarks.md's bench:learn table has a row for every environment", () => {
  const page = readFileSync(path.join(import.meta.dirname, "../docs/benchmarks.md"), "utf8");
  const section = page.slice(page.indexOf("## Does every environment's preset learn here?"));
  const table = section.slice(0, section.indexOf("\n\n", section.indexOf("| environment |")));
  const rows = [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual(
    ENVIRONMENT_NAMES.filter((n) => !rows.includes(n)),
    [],
    "environments without a bench:learn row",
  );
});
