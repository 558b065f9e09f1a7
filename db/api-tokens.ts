/**
 * API token verification, shared by the web app's REST API (server/services/tokens.ts wraps it in AppError) and the
 * environment server (trainer/env-server), which must not import server/. A token is `rl_` + 40 random base62
 * characters; only its SHA-256 hash is stored (a fast hash is enough: ~238 bits of entropy leave nothing to
 * brute-force the way passwords do). The first 11 characters (`rl_` + 8) are kept as a visible prefix.
 *
 * Failures are returned, not thrown, as one sentence that never repeats the token (tokens are never logged or
 * echoed); each caller maps them to its own error type (401 / 403).
 */
import { createHash, randomInt } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client";

/**
 * read: GET endpoints. write: everything (and read). ingest: the ingest API and the environment server only — create
 * external runs and send their data — so a token on a remote training cluster can neither read runs nor launch,
 * cancel or re-judge them.
 */
export const TOKEN_SCOPES = ["read", "write", "ingest"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export const TOKEN_PATTERN = /^rl_[A-Za-z0-9]{40}$/;
export const TOKEN_PREFIX_LENGTH = 11;
/** lastUsedAt is written at most this often per token, so a polling client does not turn every read into a write. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface TokenInfo {
  id: string;
  name: string;
  prefix: string;
  scopes: TokenScope[];
  /** Set on a run-scoped token: it may record and log into this run only (lib/engine-render.ts's launches). */
  runId?: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export type TokenCheck = { ok: true; token: TokenInfo } | { ok: false; message: string };

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A new raw token: rl_ and 40 letters and digits (TOKEN_PATTERN). */
export function generateToken(): string {
  let body = "";
  for (let i = 0; i < 40; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return `rl_${body}`;
}

/**
 * A token for one run (an outside engine's process): ingest scope, recording and logging into `runId` only. The
 * launcher revokes it when the process ends (revokeRunTokens).
 */
export async function createRunToken(db: PrismaClient, runId: string, name: string): Promise<{ id: string; token: string }> {
  const token = generateToken();
  const row = await db.apiToken.create({
    data: { name, hash: hashToken(token), prefix: token.slice(0, TOKEN_PREFIX_LENGTH), scopes: ["ingest"], runId },
    select: { id: true },
  });
  return { id: row.id, token };
}

export async function revokeRunTokens(db: PrismaClient, runId: string): Promise<void> {
  await db.apiToken.updateMany({ where: { runId, revokedAt: null }, data: { revokedAt: new Date() } });
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export function toTokenInfo(row: {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  runId?: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}): TokenInfo {
  return { ...row, scopes: row.scopes.filter((s): s is TokenScope => (TOKEN_SCOPES as readonly string[]).includes(s)) };
}

/** The token behind a raw bearer string, or why it cannot be used. Updates lastUsedAt at minute resolution. */
export async function checkApiToken(db: PrismaClient, raw: string | null | undefined): Promise<TokenCheck> {
  if (!raw)
    return {
      ok: false,
      message:
        "This endpoint needs an API token: send the header `Authorization: Bearer rl_…` (create one in Settings or with `rollout-lab tokens create`).",
    };
  if (!TOKEN_PATTERN.test(raw))
    return { ok: false, message: "The API token is malformed; tokens look like rl_ followed by 40 letters and digits." };
  const row = await db.apiToken.findUnique({ where: { hash: hashToken(raw) }, omit: { hash: true } });
  if (!row) return { ok: false, message: "The API token is not valid; check ROLLOUT_LAB_TOKEN or create a new token." };
  if (row.revokedAt)
    return { ok: false, message: `The API token ${row.prefix}… was revoked on ${row.revokedAt.toISOString()}; create a new one.` };
  const now = new Date();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } });
    row.lastUsedAt = now;
  }
  return { ok: true, token: toTokenInfo(row) };
}

/** Whether `token` may do what needs `scope`: `write` also grants `ingest`. */
export function grants(token: TokenInfo, scope: TokenScope): boolean {
  return token.scopes.includes(scope) || (scope === "ingest" && token.scopes.includes("write"));
}

/** Why `token` may not do what needs `scope`, or null when it may. */
export function scopeProblem(token: TokenInfo, scope: TokenScope): string | null {
  if (grants(token, scope)) return null;
  const alternative = scope === "ingest" ? ' (or "write")' : "";
  return `The API token ${token.prefix}… has scopes [${token.scopes.join(", ")}] but this request needs "${scope}"${alternative}; create a token with the ${scope} scope.`;
}
