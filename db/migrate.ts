/**
 * Applies the committed Prisma migrations (prisma/migrations/<name>/migration.sql) in order, recording each in
 * `_prisma_migrations` exactly as `prisma migrate deploy` does (same table, sha256 checksum of the file), so the
 * Prisma CLI on a connected machine agrees with what we applied.
 *
 * Why not the CLI: offline, every Prisma CLI command first downloads a native schema engine and fails, and the
 * usual workaround (PRISMA_SCHEMA_ENGINE_BINARY=/bin/true) makes `migrate deploy` exit 0 having applied nothing.
 */
import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import type { ClientBase } from "pg";

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationStatus {
  applied: string[];
  pending: string[];
  /** Applied migrations whose file changed after being applied (a sign of an edited migration). */
  modified: string[];
}

// An arbitrary constant: every process applying migrations takes this advisory lock, so the web server and a
// worker starting at the same moment do not both apply the same migration.
const MIGRATION_LOCK_KEY = 72_707_001;

export function defaultMigrationsDir(): string {
  return path.resolve(process.cwd(), "prisma/migrations");
}

export function readMigrationFiles(dir = defaultMigrationsDir()): MigrationFile[] {
  // The web server reads the migrations at run time from the checkout (the health check compares them with the
  // database); the bundler need not trace them, let alone the whole project.
  if (!existsSync(/* turbopackIgnore: true */ dir))
    throw new Error(`Migrations folder ${dir} not found; run from the Rollout Lab checkout.`);
  return readdirSync(/* turbopackIgnore: true */ dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
}

async function readApplied(db: ClientBase): Promise<AppliedRow[]> {
  const exists = await db.query(`SELECT to_regclass('"_prisma_migrations"') AS t`);
  if (!exists.rows[0]?.t) return [];
  const res = await db.query<AppliedRow>(
    `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
  );
  return res.rows;
}

export async function getMigrationStatus(db: ClientBase, files = readMigrationFiles()): Promise<MigrationStatus> {
  const applied = await readApplied(db);
  const done = new Map(applied.filter((r) => r.finished_at).map((r) => [r.migration_name, r.checksum]));
  return {
    applied: files.filter((f) => done.has(f.name)).map((f) => f.name),
    pending: files.filter((f) => !done.has(f.name)).map((f) => f.name),
    modified: files.filter((f) => done.has(f.name) && done.get(f.name) !== f.checksum).map((f) => f.name),
  };
}

/** Apply every pending migration, each in its own transaction. Returns the names applied now. */
export async function applyMigrations(db: ClientBase, files = readMigrationFiles()): Promise<string[]> {
  await db.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
  try {
    await db.query(CREATE_TABLE);
    const applied = await readApplied(db);
    const failed = applied.find((r) => !r.finished_at);
    if (failed) {
      throw new Error(
        `Migration ${failed.migration_name} failed earlier and left the database half-migrated; fix it by hand, then delete its row from "_prisma_migrations".`,
      );
    }
    const done = new Set(applied.map((r) => r.migration_name));
    const appliedNow: string[] = [];
    for (const file of files) {
      if (done.has(file.name)) continue;
      await db.query("BEGIN");
      try {
        const id = randomUUID();
        await db.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)`,
          [id, file.checksum, file.name],
        );
        await db.query(file.sql);
        await db.query(`UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`, [id]);
        await db.query("COMMIT");
        appliedNow.push(file.name);
      } catch (err) {
        await db.query("ROLLBACK");
        throw new Error(`Migration ${file.name} failed: ${(err as Error).message}`);
      }
    }
    return appliedNow;
  } finally {
    await db.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
  }
}
