/**
 * One-time upgrade of a data folder from the PGlite-based embedded database (Rollout Lab before the embedded
 * PostgreSQL server) to the new server: every row of every table is copied into the freshly migrated database in
 * one transaction, then `<dataDir>/pglite` is renamed to `pglite.upgraded-<time>` (kept as a backup, delete it once
 * satisfied). A crash mid-copy leaves nothing behind in the new database and the next start copies again.
 *
 * Only columns both sides have are copied (the new schema may have grown; new columns take their defaults), and
 * serial sequences are moved past the copied ids.
 */
import { existsSync, renameSync } from "node:fs";
import path from "node:path";
import type { ClientBase } from "pg";

export const pgliteDirOf = (dataDir: string) => path.resolve(dataDir, "pglite");

export function hasPgliteData(dataDir: string): boolean {
  return existsSync(path.join(pgliteDirOf(dataDir), "PG_VERSION"));
}

interface OldDb {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  close(): Promise<void>;
}

const PAGE_ROWS = 2000;
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function columnsOf(db: { query: OldDb["query"] }, table: string): Promise<string[]> {
  const res = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  return res.rows.map((r) => r.column_name);
}

/** Copies the PGlite folder's rows into `target` (already migrated). Returns rows copied per table. */
export async function upgradeFromPglite(dataDir: string, target: ClientBase, log: (m: string) => void): Promise<Record<string, number>> {
  const dir = pgliteDirOf(dataDir);
  const hasRuns = await target.query(`SELECT EXISTS (SELECT 1 FROM "Run") AS any`);
  if (hasRuns.rows[0].any) {
    // The copy committed on an earlier start but the folder was not renamed (crash in between): never copy twice.
    retire(dir, log);
    return {};
  }
  log(`Upgrading the PGlite database in ${dir} to the embedded PostgreSQL server (one time)…`);
  const { PGlite } = await import("@electric-sql/pglite");
  const old = (await PGlite.create(dir)) as unknown as OldDb;
  const copied: Record<string, number> = {};
  try {
    const tables = await old.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'`,
    );
    await target.query("BEGIN");
    // Rows arrive in table order, not foreign-key order: skip FK triggers for this transaction (we are superuser).
    await target.query("SET LOCAL session_replication_role = replica");
    for (const { table_name: table } of tables.rows) {
      const targetColumns = new Set(await columnsOf(target as unknown as OldDb, table));
      if (targetColumns.size === 0) continue; // a table the current schema no longer has
      const columns = (await columnsOf(old, table)).filter((c) => targetColumns.has(c));
      const list = columns.map(quote).join(", ");
      let after = "(0,0)";
      let n = 0;
      for (;;) {
        const page = await old.query<{ ctid: string; row: Record<string, unknown> }>(
          `SELECT t.ctid::text AS ctid, to_jsonb(t) AS row FROM ${quote(table)} t WHERE t.ctid > $1::tid ORDER BY t.ctid LIMIT ${PAGE_ROWS}`,
          [after],
        );
        if (page.rows.length === 0) break;
        await target.query(
          `INSERT INTO ${quote(table)} (${list}) SELECT ${list} FROM jsonb_populate_recordset(NULL::${quote(table)}, $1::jsonb)`,
          [JSON.stringify(page.rows.map((r) => r.row))],
        );
        n += page.rows.length;
        after = page.rows[page.rows.length - 1].ctid;
      }
      copied[table] = n;
      await advanceSequences(target, table);
    }
    await target.query("COMMIT");
  } catch (err) {
    await target.query("ROLLBACK").catch(() => {});
    throw new Error(
      `Upgrading the PGlite database in ${dir} failed (${(err as Error).message.split("\n")[0]}); nothing was changed. Start the previous Rollout Lab version to export what you need, or move the folder away to start empty.`,
    );
  } finally {
    await old.close();
  }
  retire(dir, log);
  const total = Object.values(copied).reduce((a, b) => a + b, 0);
  log(`Upgrade done: ${total} rows in ${Object.keys(copied).length} tables.`);
  return copied;
}

async function advanceSequences(target: ClientBase, table: string): Promise<void> {
  const serials = await target.query<{ column_name: string; seq: string }>(
    `SELECT column_name, pg_get_serial_sequence($1, column_name) AS seq FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $2 AND pg_get_serial_sequence($1, column_name) IS NOT NULL`,
    [quote(table), table],
  );
  for (const { column_name, seq } of serials.rows) {
    await target.query(`SELECT setval($1, COALESCE((SELECT MAX(${quote(column_name)}) FROM ${quote(table)}), 0) + 1, false)`, [seq]);
  }
}

function retire(dir: string, log: (m: string) => void): void {
  const backup = `${dir}.upgraded-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  renameSync(dir, backup);
  log(`The old PGlite folder is kept as ${backup}; delete it once you have checked your runs.`);
}
