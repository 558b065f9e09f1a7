import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { configureDataRoots, dataRoots, readDataFile, readDataJson, resolveDataPath } from "./data-roots";

const dir = mkdtempSync(path.join(os.tmpdir(), "data-roots-"));
const roots = dataRoots(dir, { ROLLOUT_LAB_DATA_ROOTS: path.join(dir, "extra") });
for (const r of roots) mkdirSync(r, { recursive: true });
mkdirSync(path.join(dir, "outside"));
writeFileSync(path.join(dir, "outside", "secret.txt"), "top secret");
writeFileSync(path.join(roots[0], "tasks.json"), "[1, 2]");
writeFileSync(path.join(roots[3], "only-extra.json"), "{}");
symlinkSync(path.join(dir, "outside", "secret.txt"), path.join(roots[0], "link.json"));
symlinkSync(path.join(roots[0], "tasks.json"), path.join(roots[1], "inner-link.json"));
execFileSync("mkfifo", [path.join(roots[0], "fifo.json")]);
after(() => {
  configureDataRoots(null);
  rmSync(dir, { recursive: true, force: true });
});

test("the roots are the data folder's datasets, models and checkpoints, then ROLLOUT_LAB_DATA_ROOTS", () => {
  assert.deepEqual(
    roots.slice(0, 3).map((r) => path.basename(r)),
    ["datasets", "models", "checkpoints"],
  );
  assert.equal(roots[3], path.join(dir, "extra"));
});

test("relative paths are found in the roots in order; absolute ones must lie inside a root", async () => {
  assert.equal(await resolveDataPath("dataset.path", "tasks.json", roots), path.join(roots[0], "tasks.json"));
  assert.equal(await resolveDataPath("dataset.path", "only-extra.json", roots), path.join(roots[3], "only-extra.json"));
  assert.equal(await resolveDataPath("dataset.path", path.join(roots[0], "tasks.json"), roots), path.join(roots[0], "tasks.json"));
  assert.equal(
    await resolveDataPath("dataset.path", "inner-link.json", roots),
    path.join(roots[0], "tasks.json"),
    "a link between roots is fine",
  );
  await assert.rejects(
    resolveDataPath("dataset.path", "missing.json", roots),
    /dataset\.path "missing\.json" was not found in the data folders/,
  );
});

test("leaving the roots by absolute path, .., or symlink gets one answer whether or not the target exists", async () => {
  const refused = /is outside the folders the trainer may read/;
  for (const p of [
    path.join(dir, "outside", "secret.txt"),
    path.join(dir, "outside", "nope.txt"),
    "../outside/secret.txt",
    "../../../../etc/passwd",
    "link.json",
    "/etc/passwd",
  ]) {
    await assert.rejects(resolveDataPath("dataset.path", p, roots), refused, p);
  }
});

test("reading refuses FIFOs, links out of the roots, and never quotes a file in a JSON error", async () => {
  configureDataRoots(roots);
  await assert.rejects(readDataFile(path.join(roots[0], "fifo.json")), /is not a regular file/);
  await assert.rejects(readDataFile(path.join(roots[0], "link.json")), /leads outside the folders/);
  await assert.rejects(readDataFile(path.join(dir, "outside", "secret.txt")), /leads outside the folders/);
  writeFileSync(path.join(roots[0], "env.json"), "PASSWORD=hunter2");
  await assert.rejects(
    readDataJson(path.join(roots[0], "env.json")),
    (err: Error) => /is not valid JSON( \(at character \d+\))?$/.test(err.message) && !err.message.includes("hunter2"),
  );
  assert.deepEqual(await readDataJson(path.join(roots[0], "tasks.json")), [1, 2]);
});
