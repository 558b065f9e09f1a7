/** The failures npm test and CI print last: read from a real node:test TAP report and a Playwright-shaped JSON one. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { formatFailures, playwrightFailures, tapFailures } from "./test-failures";

/** Runs a small test file under node:test with the TAP reporter, as scripts/test.ts does, and returns the report. */
function tapOf(source: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tap-"));
  try {
    const file = path.join(dir, "sample.test.mjs");
    writeFileSync(file, source);
    // NODE_TEST_CONTEXT would make the child report to this runner in its own binary protocol instead of TAP.
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: "" };
    delete env.NODE_TEST_CONTEXT;
    const res = spawnSync(process.execPath, ["--test", "--test-reporter=tap", file], { encoding: "utf8", env });
    return res.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a TAP report's failed tests are listed with their location and message; passing tests and failed suites are not", () => {
  const tap = tapOf(`
import test, { describe } from "node:test";
import assert from "node:assert";
test("passes", () => {});
test("it's one", () => { assert.equal(1, 2, "one isn't two"); });
describe("group", () => {
  test("inner fails", () => { throw new Error("boom\\nsecond line"); });
  test("inner passes", () => {});
});
test("too slow", { timeout: 20 }, async () => { await new Promise((r) => setTimeout(r, 300)); });
`);
  const failures = tapFailures(tap, os.tmpdir());
  assert.deepEqual(
    failures.map((f) => f.title),
    ["it's one", "inner fails", "too slow"],
  );
  assert.equal(failures[0].error, "one isn't two");
  // Relative to the folder the run started in, so a log names the file as the repository does.
  assert.match(failures[0].location ?? "", /^tap-\w+\/sample\.test\.mjs:5:1$/);
  assert.equal(failures[1].error, "boom\nsecond line");
  assert.match(failures[2].error, /timed out after 20ms/);
});

test("a report with every test passing lists nothing", () => {
  assert.deepEqual(tapFailures(tapOf(`import test from "node:test"; test("a", () => {}); test("b", () => {});`)), []);
});

test("a long message is cut to its first lines, saying how many were left out", () => {
  const tap = tapOf(`
import test from "node:test";
test("long", () => { throw new Error(Array.from({ length: 20 }, (_, i) => "line " + i).join("\\n")); });
`);
  const [only] = tapFailures(tap);
  const lines = only.error.split("\n");
  assert.equal(lines[0], "line 0");
  assert.equal(lines.at(-1), "… (12 more lines)");
});

test("Playwright's failed tests (failed on every retry) are listed with the last retry's message, colours removed", () => {
  const failures = playwrightFailures([
    {
      title: "runs.spec.ts",
      specs: [
        { title: "ok", file: "runs.spec.ts", line: 3, tests: [{ status: "expected" }] },
        { title: "retried", file: "runs.spec.ts", line: 9, tests: [{ status: "flaky", results: [{ error: { message: "first" } }, {}] }] },
      ],
      suites: [
        {
          title: "compare",
          specs: [
            {
              title: "shows two runs",
              file: "runs.spec.ts",
              line: 20,
              tests: [
                {
                  status: "unexpected",
                  results: [{ error: { message: "try 1" } }, { error: { message: "\u001b[31mTimeout 5000ms\u001b[39m\nwaiting" } }],
                },
              ],
            },
          ],
        },
      ],
    },
  ]);
  assert.deepEqual(failures, [
    { title: "runs.spec.ts › compare › shows two runs", location: "runs.spec.ts:20", error: "Timeout 5000ms\nwaiting" },
  ]);
});

test("formatted failures name the suite and the test on one line, the message indented below", () => {
  assert.deepEqual(formatFailures("integration", [{ title: "t", location: "a.ts:1:1", error: "x\ny" }]), [
    "✖ integration: t (a.ts:1:1)",
    "    x",
    "    y",
  ]);
});
