/**
 * `rollout-lab envs serve` on a database that does not exist yet: it is created and migrated as `npm start` does
 * (the server used to say it "could not be created" without trying), and the server then serves and records.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { prepareEnvServerDatabase, serveOptionsFrom, startEnvServer } from "../../trainer/env-server/main";
import { databaseUrl, dropDatabase } from "./helpers/db";

test("envs serve creates and migrates a database that does not exist, then serves", { timeout: 120_000 }, async () => {
  const name = `${process.env.TEST_DB_PREFIX ? `${process.env.TEST_DB_PREFIX}_` : ""}rl_envs_new_${randomBytes(4).toString("hex")}`;
  const url = databaseUrl(name);
  const dataDir = mkdtempSync(path.join(tmpdir(), "rl-envs-db-"));
  const log: string[] = [];
  try {
    assert.equal(await prepareEnvServerDatabase({ DATABASE_URL: url }, (l) => log.push(l)), url);
    assert.match(log.join("\n"), /applied \d+ database migration\(s\)/);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT to_regclass('"Run"') AS t`);
      assert.ok(rows[0].t, "the schema is there");
    } finally {
      await client.end();
    }
    // A second start finds it ready and applies nothing.
    log.length = 0;
    await prepareEnvServerDatabase({ DATABASE_URL: url }, (l) => log.push(l));
    assert.deepEqual(log, []);

    const started = await startEnvServer({ ...serveOptionsFrom({ port: "0" }, { ROLLOUT_LAB_DATA_DIR: dataDir }), log: () => {} }, url);
    try {
      const res = await fetch(`http://127.0.0.1:${started.port}/envs`);
      assert.equal(res.status, 200);
      assert.match(await res.text(), /guess-number/);
    } finally {
      await started.close();
    }
  } finally {
    await dropDatabase(name);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
