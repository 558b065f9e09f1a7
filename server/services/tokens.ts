/**
 * API tokens for REST / CLI access. A token is `rl_` + 40 random base62 characters; only its SHA-256 hash is
 * stored (a fast hash is enough: the token has ~238 bits of entropy, so there is nothing to brute-force the way
 * there is with passwords). The first 11 characters (`rl_` + 8) are kept as a visible prefix so people can tell
 * tokens apart in the settings page. The full token is returned exactly once, by `createToken`.
 */
import { createHash, randomInt } from "node:crypto";
import type { PrismaClient } from "../../db/client";
import { AppError } from "../errors";

/**
 * read: GET endpoints. write: everything (and read). ingest: the ingest API only — create external runs and send
 * their data — so a token on a remote training cluster can neither read runs nor launch, cancel or re-judge them.
 */
export const TOKEN_SCOPES = ["read", "write", "ingest"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const TOKEN_PATTERN = /^rl_[A-Za-z0-9]{40}$/;
const PREFIX_LENGTH = 11;
/** lastUsedAt is written at most this often per token, so a polling CLI does not turn every read into a write. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

function generateToken(): string {
  let body = "";
  for (let i = 0; i < 40; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return `rl_${body}`;
}

export interface TokenInfo {
  id: string;
  name: string;
  prefix: string;
  scopes: TokenScope[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

function toInfo(row: {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}): TokenInfo {
  return { ...row, scopes: row.scopes.filter((s): s is TokenScope => (TOKEN_SCOPES as readonly string[]).includes(s)) };
}

/** `write` implies `read` (a CI job that launches a run must also poll it) and `ingest`; `ingest` implies nothing. */
function normaliseScopes(scopes: TokenScope[]): TokenScope[] {
  if (scopes.includes("write")) return ["read", "write"];
  return TOKEN_SCOPES.filter((s) => scopes.includes(s));
}

function grants(token: TokenInfo, scope: TokenScope): boolean {
  return token.scopes.includes(scope) || (scope === "ingest" && token.scopes.includes("write"));
}

export async function createToken(db: PrismaClient, input: { name: string; scopes: TokenScope[] }): Promise<TokenInfo & { token: string }> {
  const name = input.name.trim();
  if (!name) throw new AppError("BAD_REQUEST", "A token needs a name (e.g. the CI job that uses it).", "name");
  const token = generateToken();
  const row = await db.apiToken.create({
    data: { name, hash: hashToken(token), prefix: token.slice(0, PREFIX_LENGTH), scopes: normaliseScopes(input.scopes) },
  });
  return { ...toInfo(row), token };
}

export async function listTokens(db: PrismaClient, input: { includeRevoked?: boolean } = {}): Promise<TokenInfo[]> {
  const rows = await db.apiToken.findMany({
    where: input.includeRevoked ? {} : { revokedAt: null },
    orderBy: { createdAt: "desc" },
    omit: { hash: true },
  });
  return rows.map(toInfo);
}

/** Revoke by id or by visible prefix (what the CLI user can see). Revoking twice is harmless. */
export async function revokeToken(db: PrismaClient, idOrPrefix: string): Promise<TokenInfo> {
  const matches = await db.apiToken.findMany({ where: { OR: [{ id: idOrPrefix }, { prefix: idOrPrefix }] }, omit: { hash: true } });
  if (matches.length === 0) throw new AppError("NOT_FOUND", `No API token has the id or prefix "${idOrPrefix}".`);
  if (matches.length > 1) throw new AppError("CONFLICT", `Several tokens share the prefix "${idOrPrefix}"; revoke by id instead.`);
  const row = matches[0];
  if (row.revokedAt) return toInfo(row);
  const updated = await db.apiToken.update({ where: { id: row.id }, data: { revokedAt: new Date() }, omit: { hash: true } });
  return toInfo(updated);
}

/**
 * The token behind a raw bearer string, or an UNAUTHORIZED error that never repeats the string (tokens are never
 * logged or echoed). Updates lastUsedAt at minute resolution.
 */
export async function authenticateToken(db: PrismaClient, raw: string | null | undefined): Promise<TokenInfo> {
  if (!raw)
    throw new AppError(
      "UNAUTHORIZED",
      "This endpoint needs an API token: send the header `Authorization: Bearer rl_…` (create one in Settings or with `rollout-lab tokens create`).",
    );
  if (!TOKEN_PATTERN.test(raw))
    throw new AppError("UNAUTHORIZED", "The API token is malformed; tokens look like rl_ followed by 40 letters and digits.");
  const row = await db.apiToken.findUnique({ where: { hash: hashToken(raw) }, omit: { hash: true } });
  if (!row) throw new AppError("UNAUTHORIZED", "The API token is not valid; check ROLLOUT_LAB_TOKEN or create a new token.");
  if (row.revokedAt)
    throw new AppError("UNAUTHORIZED", `The API token ${row.prefix}… was revoked on ${row.revokedAt.toISOString()}; create a new one.`);
  const now = new Date();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } });
    row.lastUsedAt = now;
  }
  return toInfo(row);
}

export function assertScope(token: TokenInfo, scope: TokenScope): void {
  if (!grants(token, scope)) {
    throw new AppError(
      "FORBIDDEN",
      `The API token ${token.prefix}… has scopes [${token.scopes.join(", ")}] but this request needs "${scope}"${scope === "ingest" ? ' (or "write")' : ""}; create a token with the ${scope} scope.`,
    );
  }
}
