/**
 * A worker's pre-flight checks are answered while its main thread is held by training: the side loops run in a
 * thread of their own (trainer/side-jobs.ts). Here the main thread blocks outright (Atomics.wait, as a TF.js step
 * blocks it) until the thread reports the check answered; on the main thread the check could not be answered at all.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Worker } from "node:worker_threads";
import { presetConfig } from "../../lib/environments";
import { parseRunConfig } from "../../lib/run-config";
import { startSideJobs } from "../../trainer/side-jobs";
import { createTestDatabase, type TestDatabase } from "./helpers/db";

let db: TestDatabase;
let thread: Worker | undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), "rl-side-jobs-"));
before(async () => {
  process.env.ROLLOUT_LAB_BACKEND ??= "cpu";
  process.env.ROLLOUT_LAB_DATA_DIR = dataDir;
  db = await createTestDatabase("rl_side_jobs");
});
after(async () => {
  await thread?.terminate();
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("a pre-flight check is answered while the worker's main thread is blocked", { timeout: 300_000 }, async () => {
  const answered = new SharedArrayBuffer(4);
  const counter = new Int32Array(answered);
  const errors: string[] = [];
  thread = startSideJobs(db.url, { answered, log: (m) => errors.push(m) });
  const config = parseRunConfig(presetConfig("guess-number")) as object;
  const { id } = await db.prisma.preflight.create({ data: { config }, select: { id: true } });
  // Blocked: no timer, no I/O, no promise of this thread runs until the thread's counter moves (or 4 minutes pass).
  const outcome = Atomics.wait(counter, 0, 0, 240_000);
  assert.equal(outcome, "ok", `no check answered while the main thread was blocked (${errors.join("; ")})`);
  const row = await db.prisma.preflight.findUniqueOrThrow({ where: { id } });
  assert.equal(row.status, "done", row.error ?? "");
  assert.deepEqual(errors, []);
});
