/**
 * Where the embedded PostgreSQL keeps its data and its password, and the URL a process on this machine uses to
 * reach it. Kept apart from embedded.ts (which spawns the server) so that the worker and the CLI can find a running
 * embedded database without pulling in the server-management code.
 *
 * The password is generated once per data folder and stored in a file only its owner can read (0600): the
 * database listens on loopback only, but any local user could otherwise connect to a passwordless port. The port
 * the server was last started on is stored beside it, so that tools given only the data folder find it.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The role and database Rollout Lab uses inside the embedded server. */
export const EMBEDDED_DB_USER = "postgres";
export const EMBEDDED_DB_NAME = "rollout_lab";

export const embeddedClusterDir = (dataDir: string) => path.resolve(dataDir, "postgres");
export const embeddedPasswordFile = (dataDir: string) => path.resolve(dataDir, "postgres.password");
export const embeddedPortFile = (dataDir: string) => path.resolve(dataDir, "postgres.port");

/** Records the port the embedded server listens on (written by the process that starts it). */
export function writeEmbeddedPort(dataDir: string, port: number): void {
  writeFileSync(embeddedPortFile(dataDir), `${port}\n`);
}

function readEmbeddedPort(dataDir: string): number | null {
  const file = embeddedPortFile(dataDir);
  if (!existsSync(file)) return null;
  const port = Number(readFileSync(file, "utf8").trim());
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : null;
}

/** The stored password, created (0600) on first use. */
export function ensureEmbeddedPassword(dataDir: string): string {
  const file = embeddedPasswordFile(dataDir);
  if (existsSync(file)) return readEmbeddedPassword(dataDir)!;
  mkdirSync(path.dirname(file), { recursive: true });
  const password = randomBytes(24).toString("base64url");
  writeFileSync(file, `${password}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return password;
}

export function readEmbeddedPassword(dataDir: string): string | null {
  const file = embeddedPasswordFile(dataDir);
  if (!existsSync(file)) return null;
  const password = readFileSync(file, "utf8").trim();
  return password || null;
}

export function embeddedDatabaseUrl(password: string, port: number, host = "127.0.0.1"): string {
  return `postgresql://${EMBEDDED_DB_USER}:${encodeURIComponent(password)}@${host}:${port}/${EMBEDDED_DB_NAME}`;
}

/**
 * The URL of the embedded database a running `npm start` serves from `dataDir`, for processes started without
 * DATABASE_URL on the same machine (`npm run worker`, `rollout-lab tokens`): its password and port are read from
 * the folder (EMBEDDED_DB_PORT, when set, names the port instead). Null when the folder has no embedded database yet.
 */
export function localEmbeddedDatabaseUrl(env: Record<string, string | undefined> = process.env): string | null {
  const dataDir = env.ROLLOUT_LAB_DATA_DIR || ".data";
  const password = readEmbeddedPassword(dataDir);
  if (!password) return null;
  const port = env.EMBEDDED_DB_PORT ? Number(env.EMBEDDED_DB_PORT) : (readEmbeddedPort(dataDir) ?? 54329);
  return embeddedDatabaseUrl(password, port);
}

/** A database URL with its password masked, for messages and logs. */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@/]*@/, "$1***@");
}
