/**
 * `rollout-lab tokens create|list|revoke` talk to the database directly (DATABASE_URL), not to the API: that is how
 * the very first token is made, on the server host, before any token exists. With no DATABASE_URL the embedded
 * database of this machine's `npm start` is used (its password is read from ROLLOUT_LAB_DATA_DIR, default .data).
 */
import { createPrismaClient, type PrismaClient } from "../db/client";
import { createToken, listTokens, revokeToken, type TokenScope } from "../server/services/tokens";
import { AppError } from "../server/errors";
import { localEmbeddedDatabaseUrl, redactDatabaseUrl } from "../db/embedded-credentials";
import { CliError, EXIT } from "./exit-codes";

export function databaseUrlFromEnv(flag: string | undefined): string {
  const url = flag || process.env.DATABASE_URL || localEmbeddedDatabaseUrl();
  if (!url) {
    throw new CliError(
      EXIT.USAGE,
      `No database: set DATABASE_URL (or --database-url), or run this on the machine where \`npm start\` keeps its embedded database (ROLLOUT_LAB_DATA_DIR, default .data).`,
    );
  }
  return url;
}

/**
 * Why a database call failed, never empty: Prisma's message is "\nInvalid `db.x()` invocation in\n<source lines>\n
 * <reason>", so its reason is the last line with text (its first line was empty, and printed as ": .").
 */
function reasonOf(error: unknown): string {
  const lines = (error instanceof Error ? error.message : String(error))
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.at(-1) ?? (error instanceof Error ? error.name : "unknown error")).replace(/\.$/, "");
}

async function withDb<T>(url: string, fn: (db: PrismaClient) => Promise<T>): Promise<T> {
  const db = createPrismaClient(url, 1);
  try {
    return await fn(db);
  } catch (error) {
    if (error instanceof AppError)
      throw new CliError(error.code === "NOT_FOUND" || error.code === "CONFLICT" ? EXIT.NOT_FOUND_OR_CONFLICT : EXIT.USAGE, error.message);
    const safeUrl = redactDatabaseUrl(url);
    throw new CliError(
      EXIT.ERROR,
      `Cannot use the database at ${safeUrl}: ${reasonOf(error)}. Start Rollout Lab (\`npm start\`) if it uses the embedded database, or set DATABASE_URL (or --database-url) to Rollout Lab's database.`,
    );
  } finally {
    await db.$disconnect();
  }
}

export async function tokensCreate(
  opts: { databaseUrl: string; name: string; scopes: TokenScope[] },
  out: (s: string) => void,
  err: (s: string) => void,
) {
  const created = await withDb(opts.databaseUrl, (db) => createToken(db, { name: opts.name, scopes: opts.scopes }));
  // The token goes to stdout alone (so `TOKEN=$(rollout-lab tokens create …)` works); the notes go to stderr.
  out(created.token);
  err(
    `Created token "${created.name}" (${created.prefix}…, scopes: ${created.scopes.join(", ")}). It is shown only now; store it as a secret (ROLLOUT_LAB_TOKEN).`,
  );
}

export async function tokensList(opts: { databaseUrl: string; all: boolean }, out: (s: string) => void) {
  const tokens = await withDb(opts.databaseUrl, (db) => listTokens(db, { includeRevoked: opts.all }));
  if (tokens.length === 0) out("No tokens.");
  for (const t of tokens) {
    const used = t.lastUsedAt ? `last used ${t.lastUsedAt.toISOString()}` : "never used";
    out(
      `${t.id}  ${t.prefix}…  ${t.scopes.join(",").padEnd(10)}  ${t.name}  (${used}${t.revokedAt ? `, revoked ${t.revokedAt.toISOString()}` : ""})`,
    );
  }
}

export async function tokensRevoke(opts: { databaseUrl: string; idOrPrefix: string }, out: (s: string) => void) {
  const t = await withDb(opts.databaseUrl, (db) => revokeToken(db, opts.idOrPrefix));
  out(`Revoked token "${t.name}" (${t.prefix}…).`);
}
