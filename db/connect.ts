/**
 * Reaching PostgreSQL with errors a user can act on. Every failure becomes one sentence saying what is wrong and
 * what to do (the start script prints it instead of a stack trace).
 */
import pg from "pg";

export class DatabaseUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DatabaseUnavailableError";
  }
}

function describeTarget(url: URL): string {
  return `${url.hostname || "localhost"}:${url.port || "5432"}`;
}

/** Translate a pg connection error into one actionable sentence. */
export function explainConnectionError(err: unknown, databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const target = describeTarget(url);
  const e = err as { code?: string; message?: string };
  switch (e.code) {
    case "ECONNREFUSED":
      return `Cannot reach PostgreSQL at ${target} (connection refused): start the server, fix DATABASE_URL, or unset DATABASE_URL to use the embedded database.`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `The host "${url.hostname}" in DATABASE_URL could not be resolved: check the host name, or unset DATABASE_URL to use the embedded database.`;
    case "ETIMEDOUT":
    case "CONNECT_TIMEOUT":
      return `PostgreSQL at ${target} did not answer within 5 seconds: check that the server is up and reachable from this machine.`;
    case "28P01":
    case "28000":
      return `PostgreSQL at ${target} rejected the login for user "${decodeURIComponent(url.username) || "(none)"}": check the user and password in DATABASE_URL.`;
    case "3D000":
      return `The database "${url.pathname.slice(1)}" does not exist on ${target} and could not be created: create it (createdb) or pick another name in DATABASE_URL.`;
    default:
      return `Could not connect to PostgreSQL at ${target}: ${e.message ?? String(err)}.`;
  }
}

async function connectOnce(connectionString: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    return client;
  } catch (err) {
    await client.end().catch(() => {});
    if ((err as Error).message?.includes("timeout")) throw Object.assign(err as Error, { code: "CONNECT_TIMEOUT" });
    throw err;
  }
}

/**
 * Connect to DATABASE_URL; when the server is up but the database does not exist yet, create it (so
 * `DATABASE_URL=postgresql://postgres@127.0.0.1:5432/new_db npm start` just works). Returns a connected client.
 */
export async function connectOrCreateDatabase(databaseUrl: string): Promise<pg.Client> {
  try {
    return await connectOnce(databaseUrl);
  } catch (err) {
    if ((err as { code?: string }).code !== "3D000") {
      throw new DatabaseUnavailableError(explainConnectionError(err, databaseUrl));
    }
  }
  const url = new URL(databaseUrl);
  const dbName = decodeURIComponent(url.pathname.slice(1));
  const admin = new URL(databaseUrl);
  admin.pathname = "/postgres";
  try {
    const client = await connectOnce(admin.toString());
    try {
      await client.query(`CREATE DATABASE "${dbName.replaceAll('"', '""')}"`);
    } finally {
      await client.end();
    }
    return await connectOnce(databaseUrl);
  } catch (err) {
    throw new DatabaseUnavailableError(explainConnectionError({ code: "3D000", message: (err as Error).message }, databaseUrl));
  }
}
