/**
 * The foundation against the real PostgreSQL: migrations apply (and re-apply as a no-op), the database matches the
 * Prisma schema, the demo seed is realistic, and the tRPC runs router serves it with clear 4xx errors.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { TRPCError } from "@trpc/server";
import { readFileSync } from "node:fs";
import { createCaller } from "../../server/api/root";
import { createTrpcContext } from "../../server/api/trpc";
import { applyMigrations, getMigrationStatus, readMigrationFiles } from "../../db/migrate";
import { connectOrCreateDatabase } from "../../db/connect";
import { parseRunConfig } from "../../lib/run-config";
import { DEMO_RUN_NAME, seedIfEmpty } from "../../server/seed/demo";
import { insertSyntheticRun } from "./helpers/synthetic-run";
import { createTestDatabase, databaseUrl, dropDatabase, type TestDatabase } from "./helpers/db";

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});
after(async () => {
  await db.drop();
});

test("migrations are recorded like prisma migrate deploy and re-applying is a no-op", async () => {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    assert.deepEqual(await applyMigrations(client), []);
    const status = await getMigrationStatus(client);
    assert.deepEqual(status.pending, []);
    assert.equal(status.applied.length, readMigrationFiles().length);
    const rows = await client.query(`SELECT checksum, applied_steps_count, finished_at FROM "_prisma_migrations"`);
    assert.equal(rows.rows[0].checksum, readMigrationFiles()[0].checksum);
    assert.equal(rows.rows[0].applied_steps_count, 1);
    assert.ok(rows.rows[0].finished_at);
  } finally {
    await client.end();
  }
});

test("every Prisma model field exists as a column with the same nullability (hand-written SQL cannot drift)", async () => {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const cols = await client.query<{ table_name: string; column_name: string; is_nullable: string }>(
      `SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public'`,
    );
    const have = new Map(cols.rows.map((r) => [`${r.table_name}.${r.column_name}`, r.is_nullable === "YES"]));
    const models = parseSchemaFields(readFileSync("prisma/schema.prisma", "utf8"));
    assert.ok(models.length >= 8);
    for (const field of models) {
      const key = `${field.model}.${field.name}`;
      assert.ok(have.has(key), `column ${key} is missing from the migrations`);
      if (!field.isList) assert.equal(have.get(key), field.optional, `nullability of ${key} differs from schema.prisma`);
    }
  } finally {
    await client.end();
  }
});

test("a database named in DATABASE_URL that does not exist yet is created", async () => {
  const name = `rl_test_new_${Date.now()}`;
  const client = await connectOrCreateDatabase(databaseUrl(name));
  try {
    const res = await client.query("SELECT current_database() AS db");
    assert.equal(res.rows[0].db, name);
  } finally {
    await client.end();
    await dropDatabase(name);
  }
});

test("a server that is down gives one sentence saying what to do", async () => {
  await assert.rejects(connectOrCreateDatabase("postgresql://postgres@127.0.0.1:1/nothing"), (err: Error) => {
    assert.match(err.message, /Cannot reach PostgreSQL at 127\.0\.0\.1:1 \(connection refused\)/);
    assert.doesNotMatch(err.message, /\n\s+at /);
    return true;
  });
});

test("a fresh database gets a real demo run queued for the worker, once; nothing is fabricated", async () => {
  const id = await seedIfEmpty(db.prisma);
  assert.ok(id);
  assert.equal(await seedIfEmpty(db.prisma), null, "only an empty database is seeded");
  const run = await db.prisma.run.findUniqueOrThrow({ where: { id } });
  assert.equal(run.name, DEMO_RUN_NAME);
  assert.equal(run.status, "queued", "the worker trains it; it is not a recording");
  assert.equal(run.environment, "guess-number");
  assert.equal(await db.prisma.metricPoint.count({ where: { runId: id } }), 0, "no curve exists before the worker trains it");
  const config = parseRunConfig(run.config);
  assert.ok(config.grpo.sftWarmupSteps > 0 && config.grpo.steps >= 100, "the learning preset, long enough to watch");
  await insertSyntheticRun(db.prisma); // the fixture the next test filters
});

test("the runs router filters and rejects bad input with the field named", async () => {
  const caller = createCaller(createTrpcContext(db.prisma));
  assert.equal((await caller.runs.list({ status: ["failed"] })).items.length, 0);
  assert.ok((await caller.runs.list({ search: "AIRLINE" })).items.length >= 1);
  await assert.rejects(
    caller.runs.get({ id: "does-not-exist" }),
    (err: TRPCError) => err.code === "NOT_FOUND" && /does not exist/.test(err.message),
  );
  await assert.rejects(caller.runs.list({ limit: 5000 }), (err: TRPCError) => err.code === "BAD_REQUEST" && /limit/.test(err.message));
});

/** Scalar fields of every model in schema.prisma (relation fields, whose type is another model, are skipped). */
function parseSchemaFields(schema: string) {
  const blocks = [...schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)];
  const modelNames = new Set(blocks.map((b) => b[1]));
  return blocks.flatMap(([, model, body]) =>
    body
      .split("\n")
      .map((line) => line.trim().match(/^(\w+)\s+(\w+)(\[\])?(\?)?/))
      .filter((m): m is RegExpMatchArray => m !== null && !modelNames.has(m[2]))
      .map((m) => ({ model, name: m[1], isList: Boolean(m[3]), optional: Boolean(m[4]) })),
  );
}
