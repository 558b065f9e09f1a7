/**
 * Which database a worker uses, and a clear sentence when it cannot be used. Workers never start the embedded
 * database themselves: `npm start` owns it (a PostgreSQL server on a loopback port, its password in the data
 * folder), and a worker on another host must be given DATABASE_URL.
 */
import pg from "pg";
import { explainConnectionError } from "../../db/connect";
import { localEmbeddedDatabaseUrl, redactDatabaseUrl } from "../../db/embedded-credentials";

export function resolveWorkerDatabaseUrl(env: Record<string, string | undefined> = process.env): { url: string; embeddedDefault: boolean } {
  const url = env.DATABASE_URL?.trim();
  if (url) return { url, embeddedDefault: false };
  const embedded = localEmbeddedDatabaseUrl(env);
  if (!embedded) {
    throw new WorkerDatabaseError(
      `DATABASE_URL is unset and ${env.ROLLOUT_LAB_DATA_DIR || ".data"} holds no embedded database: start Rollout Lab with \`npm start\` first (it creates one), or set DATABASE_URL to your PostgreSQL.`,
    );
  }
  return { url: embedded, embeddedDefault: true };
}

export class WorkerDatabaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkerDatabaseError";
  }
}

/** Connect once and check the schema is there; throws WorkerDatabaseError with one actionable sentence. */
export async function checkWorkerDatabase(url: string, embeddedDefault: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    const hint = embeddedDefault
      ? ` DATABASE_URL is unset, so the worker looked for the embedded database that \`npm start\` serves on port ${new URL(url).port} (${redactDatabaseUrl(url)}): start Rollout Lab with \`npm start\` first, or set DATABASE_URL to your PostgreSQL.`
      : "";
    throw new WorkerDatabaseError(explainConnectionError(err, url) + hint);
  }
  try {
    const res = await client.query(`SELECT to_regclass('"Run"') AS t`);
    if (!res.rows[0]?.t) {
      throw new WorkerDatabaseError(
        `The database at ${new URL(url).host} has no Rollout Lab tables: run \`npm run db:migrate\` (or \`npm start\`, which migrates) first.`,
      );
    }
  } finally {
    await client.end();
  }
}
