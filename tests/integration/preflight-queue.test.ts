/**
 * The pre-flight queue answers the check someone is waiting for: the newest first, and never one abandoned minutes
 * ago (every visit of the launch page asks for one; answered oldest-first, a busy worker reached the user's own
 * check minutes after the form had given up). Real PostgreSQL, the worker's own claim and computation.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { presetConfig } from "../../lib/environments";
import { parseRunConfig } from "../../lib/run-config";
import { runOnePreflight } from "../../trainer/preflight/loop";
import { createTestDatabase, type TestDatabase } from "./helpers/db";

let db: TestDatabase;
const dataDir = mkdtempSync(path.join(tmpdir(), "rl-preflight-queue-"));
before(async () => {
  process.env.ROLLOUT_LAB_BACKEND ??= "cpu";
  db = await createTestDatabase("rl_preflight_queue");
});
after(async () => {
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("the newest check is answered first, and one abandoned minutes ago is left alone", async () => {
  const config = parseRunConfig(presetConfig("guess-number")) as object;
  const ask = (secondsAgo: number) =>
    db.prisma.preflight.create({ data: { config, createdAt: new Date(Date.now() - secondsAgo * 1000) }, select: { id: true } });
  const abandoned = await ask(300);
  const earlier = await ask(20);
  const latest = await ask(1);

  assert.equal(await runOnePreflight(db.prisma, "w1", dataDir), true);
  const status = async (id: string) => (await db.prisma.preflight.findUniqueOrThrow({ where: { id } })).status;
  assert.equal(await status(latest.id), "done");
  assert.equal(await status(earlier.id), "queued");
  assert.equal(await runOnePreflight(db.prisma, "w1", dataDir), true);
  assert.equal(await status(earlier.id), "done");
  assert.equal(await runOnePreflight(db.prisma, "w1", dataDir), false, "nothing left that anyone waits for");
  assert.equal(await status(abandoned.id), "queued");
});
