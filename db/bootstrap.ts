/**
 * Bring the database up for a process that owns it (the start script, migrate and seed commands):
 * the embedded PostgreSQL server when DATABASE_URL is unset, otherwise the user's PostgreSQL (created if missing);
 * then apply pending migrations, and upgrade a data folder left by the PGlite-based embedded database. Errors are one actionable sentence (DatabaseUnavailableError /
 * EmbeddedDatabaseError), which callers print without a stack trace.
 */
import type { AppEnv } from "../lib/env";
import { connectOrCreateDatabase } from "./connect";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "./embedded";
import { applyMigrations } from "./migrate";
import { hasPgliteData, upgradeFromPglite } from "./pglite-upgrade";

export interface PreparedDatabase {
  url: string;
  embedded: EmbeddedDatabase | null;
  migrationsApplied: string[];
  stop(): Promise<void>;
}

export async function prepareDatabase(
  env: AppEnv,
  log: (message: string) => void = (m) => console.log(`[rollout-lab] ${m}`),
): Promise<PreparedDatabase> {
  const embedded = env.DATABASE_URL ? null : await startEmbeddedDatabase({ dataDir: env.ROLLOUT_LAB_DATA_DIR, port: env.EMBEDDED_DB_PORT });
  const url = env.DATABASE_URL ?? embedded!.url;
  try {
    const client = await connectOrCreateDatabase(url);
    try {
      const migrationsApplied = await applyMigrations(client);
      if (embedded && hasPgliteData(embedded.dataDir)) await upgradeFromPglite(embedded.dataDir, client, log);
      return { url, embedded, migrationsApplied, stop: async () => embedded?.stop() };
    } finally {
      await client.end();
    }
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
}

/** Errors whose message is already a complete sentence for the user (print it, not the stack). */
export function isUserFacingStartupError(err: unknown): err is Error {
  return err instanceof Error && ["DatabaseUnavailableError", "EmbeddedDatabaseError", "EnvError"].includes(err.name);
}
