/**
 * A benchmark's own database on the local PostgreSQL, kept between runs (filling is slow) and migrated: created if
 * missing, dropped and recreated with `refill`. Env: BENCH_PG_ADMIN_URL (default postgresql://postgres@127.0.0.1:5432/postgres).
 */
import pg from "pg";
import { applyMigrations } from "../db/migrate";

const ADMIN = process.env.BENCH_PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export function benchDbUrl(name: string): string {
  const u = new URL(ADMIN);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A connected client on the benchmark's database, migrated (the caller ends it). */
export async function openBenchDb(name: string, refill: boolean): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: ADMIN });
  await admin.connect();
  const exists = (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount;
  if (exists && refill) await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
  if (!exists || refill) await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const c = new pg.Client({ connectionString: benchDbUrl(name) });
  await c.connect();
  await applyMigrations(c);
  return c;
}
