/**
 * API tokens for REST / CLI access: creation (the full token is returned exactly once, by `createToken`), listing,
 * revocation, and the REST layer's authentication. The token format and its verification live in db/api-tokens.ts,
 * shared with the environment server.
 */
import type { PrismaClient } from "../../db/client";
import {
  TOKEN_PREFIX_LENGTH,
  TOKEN_SCOPES,
  generateToken,
  checkApiToken,
  hashToken,
  scopeProblem,
  toTokenInfo,
  type TokenInfo,
  type TokenScope,
} from "../../db/api-tokens";
import { AppError } from "../errors";

export { TOKEN_SCOPES, hashToken };
export type { TokenInfo, TokenScope };

/** `write` implies `read` (a CI job that launches a run must also poll it) and `ingest`; `ingest` implies nothing. */
function normaliseScopes(scopes: TokenScope[]): TokenScope[] {
  if (scopes.includes("write")) return ["read", "write"];
  return TOKEN_SCOPES.filter((s) => scopes.includes(s));
}

export async function createToken(db: PrismaClient, input: { name: string; scopes: TokenScope[] }): Promise<TokenInfo & { token: string }> {
  const name = input.name.trim();
  if (!name) throw new AppError("BAD_REQUEST", "A token needs a name (e.g. the CI job that uses it).", "name");
  const token = generateToken();
  const row = await db.apiToken.create({
    data: { name, hash: hashToken(token), prefix: token.slice(0, TOKEN_PREFIX_LENGTH), scopes: normaliseScopes(input.scopes) },
  });
  return { ...toTokenInfo(row), token };
}

export async function listTokens(db: PrismaClient, input: { includeRevoked?: boolean } = {}): Promise<TokenInfo[]> {
  const rows = await db.apiToken.findMany({
    where: input.includeRevoked ? {} : { revokedAt: null },
    orderBy: { createdAt: "desc" },
    omit: { hash: true },
  });
  return rows.map(toTokenInfo);
}

/** Revoke by id or by visible prefix (what the CLI user can see). Revoking twice is harmless. */
export async function revokeToken(db: PrismaClient, idOrPrefix: string): Promise<TokenInfo> {
  const matches = await db.apiToken.findMany({ where: { OR: [{ id: idOrPrefix }, { prefix: idOrPrefix }] }, omit: { hash: true } });
  if (matches.length === 0) throw new AppError("NOT_FOUND", `No API token has the id or prefix "${idOrPrefix}".`);
  if (matches.length > 1) throw new AppError("CONFLICT", `Several tokens share the prefix "${idOrPrefix}"; revoke by id instead.`);
  const row = matches[0];
  if (row.revokedAt) return toTokenInfo(row);
  const updated = await db.apiToken.update({ where: { id: row.id }, data: { revokedAt: new Date() }, omit: { hash: true } });
  return toTokenInfo(updated);
}

/**
 * The token behind a raw bearer string, or an UNAUTHORIZED error that never repeats the string (tokens are never
 * logged or echoed). Updates lastUsedAt at minute resolution (db/api-tokens.ts, shared with the environment server).
 */
export async function authenticateToken(db: PrismaClient, raw: string | null | undefined): Promise<TokenInfo> {
  const check = await checkApiToken(db, raw);
  if (!check.ok) throw new AppError("UNAUTHORIZED", check.message);
  return check.token;
}

export function assertScope(token: TokenInfo, scope: TokenScope): void {
  const problem = scopeProblem(token, scope);
  if (problem) throw new AppError("FORBIDDEN", problem);
}
