import { after, test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readNewLines } from "./job-logs";

test("a job's output is read line by line from where the last read stopped; a partial line waits for its end", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "job-logs-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "12.out");
  assert.deepEqual(readNewLines(file, 0, false), { lines: [], offset: 0 }, "not created yet");
  writeFileSync(file, "step 0\nstep 1\nstep 2 (half");
  const first = readNewLines(file, 0, false);
  assert.deepEqual(first.lines, ["step 0", "step 1"]);
  appendFileSync(file, " done)\r\n");
  const second = readNewLines(file, first.offset, false);
  assert.deepEqual(second.lines, ["step 2 (half done)"]);
  appendFileSync(file, "killed without a newline");
  assert.deepEqual(readNewLines(file, second.offset, false).lines, []);
  assert.deepEqual(readNewLines(file, second.offset, true).lines, ["killed without a newline"], "the job ended: the rest is read");
});
