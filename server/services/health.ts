/** Health: database reachable, migrations current, version. Used by /api/health and the start script. */
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { getMigrationStatus } from "../../db/migrate";

export interface Health {
  ok: boolean;
  version: string;
  database: { reachable: boolean; mode: "embedded" | "external"; error?: string };
  migrations: { current: boolean; applied: number; pending: string[]; modified: string[] };
}

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(path.resolve(process.cwd(), "package.json"), "utf8")) as { version: string };
  return pkg.version;
}

export async function checkHealth(databaseUrl = process.env.DATABASE_URL): Promise<Health> {
  const mode = process.env.ROLLOUT_LAB_EMBEDDED_DB === "1" ? "embedded" : "external";
  const version = readVersion();
  const down = (error: string): Health => ({
    ok: false,
    version,
    database: { reachable: false, mode, error },
    migrations: { current: false, applied: 0, pending: [], modified: [] },
  });
  if (!databaseUrl) return down("DATABASE_URL is not set");
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const status = await getMigrationStatus(client);
    const current = status.pending.length === 0 && status.modified.length === 0;
    return {
      ok: current,
      version,
      database: { reachable: true, mode },
      migrations: { current, applied: status.applied.length, pending: status.pending, modified: status.modified },
    };
  } catch (err) {
    return down((err as Error).message);
  } finally {
    await client.end().catch(() => {});
  }
}
