/**
 * A data folder from the PGlite-based embedded database (before the embedded PostgreSQL server) is upgraded on the
 * first start: every row arrives in the new server, serial ids continue after the copied ones, the old folder is
 * kept as a backup, and a second start neither copies again nor loses anything.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { loadEnv } from "../../lib/env";
import { prepareDatabase } from "../../db/bootstrap";
import { createPrismaClient } from "../../db/client";
import { readMigrationFiles } from "../../db/migrate";
import { freePort } from "./helpers/start-app";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "rollout-lab-pglite-"));
after(() => rmSync(dataDir, { recursive: true, force: true }));

async function writeOldPgliteFolder(): Promise<void> {
  const old = await PGlite.create(path.join(dataDir, "pglite"));
  for (const m of readMigrationFiles()) await old.exec(m.sql);
  await old.query(
    `INSERT INTO "Run" (id, name, config, environment, "policyModel", seed, "totalSteps", step, "launchedBy", tags, "updatedAt", status)
     VALUES ('run_old_1', 'from pglite', '{"environment":"guess-number"}', 'guess-number', 'tiny', 7, 10, 3, 'ui', ARRAY['old'], now(), 'succeeded')`,
  );
  for (let i = 0; i < 3; i++)
    await old.query(`INSERT INTO "RunEvent" ("runId", level, message, step) VALUES ('run_old_1', 'info', $1, $2)`, [`event ${i}`, i]);
  await old.query(
    `INSERT INTO "MetricPoint" ("runId", key, step, value) SELECT 'run_old_1', 'reward/mean', s, s / 10.0 FROM generate_series(0, 2499) s`,
  );
  await old.close();
}

test("a PGlite data folder is copied into the embedded server once, and kept as a backup", { timeout: 180_000 }, async () => {
  await writeOldPgliteFolder();
  const env = loadEnv({ ROLLOUT_LAB_DATA_DIR: dataDir, EMBEDDED_DB_PORT: String(await freePort()) });
  const logs: string[] = [];

  const first = await prepareDatabase(env, (m) => logs.push(m));
  try {
    const db = createPrismaClient(first.url, 1);
    const run = await db.run.findUniqueOrThrow({ where: { id: "run_old_1" } });
    assert.equal(run.name, "from pglite");
    assert.deepEqual(run.tags, ["old"]);
    assert.equal(run.step, 3);
    assert.equal(await db.metricPoint.count({ where: { runId: "run_old_1" } }), 2500, "more than one page of rows");
    const events = await db.runEvent.findMany({ where: { runId: "run_old_1" }, orderBy: { id: "asc" } });
    assert.deepEqual(
      events.map((e) => e.message),
      ["event 0", "event 1", "event 2"],
    );
    const next = await db.runEvent.create({ data: { runId: "run_old_1", level: "info", message: "new" } });
    assert.ok(next.id > events[2].id, "serial ids continue after the copied ones");
    await db.$disconnect();
  } finally {
    await first.stop();
  }
  assert.equal(existsSync(path.join(dataDir, "pglite")), false);
  assert.equal(readdirSync(dataDir).filter((f) => f.startsWith("pglite.upgraded-")).length, 1, "the old folder is kept as a backup");
  assert.ok(
    logs.some((l) => /Upgrade done: \d+ rows/.test(l)),
    logs.join("\n"),
  );

  const second = await prepareDatabase(env, () => {});
  try {
    const db = createPrismaClient(second.url, 1);
    assert.equal(await db.run.count(), 1, "nothing copied twice");
    assert.equal(await db.runEvent.count(), 4);
    await db.$disconnect();
  } finally {
    await second.stop();
  }
});
