/**
 * Idempotency-Key for REST creates (the pattern Stripe's API made common). A client that did not get a reply — a
 * timeout, a dropped connection, a web server that crashed after committing — retries with the same key and gets
 * the original response; nothing is created twice. The key's record is written in the same transaction as the
 * run it describes, so "created but not recorded" cannot happen; two concurrent requests with one key race on the
 * primary key and the loser's creation rolls back.
 *
 * Keys are scoped to the API token, kept for KEY_TTL_DAYS, and bound to the request: the same key with another
 * body is refused (422), because replaying an unrelated response would be worse than failing.
 */
import { createHash } from "node:crypto";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";
import { canonicalJson } from "../../lib/canonical-json";
import { AppError } from "../errors";

export const IDEMPOTENCY_HEADER = "idempotency-key";
const KEY_PATTERN = /^[\x21-\x7e]{1,200}$/;
const KEY_TTL_DAYS = 7;

export interface IdempotentRequest {
  tokenId: string;
  key: string;
  method: string;
  path: string;
  body: unknown;
}

export interface StoredResponse {
  status: number;
  body: unknown;
  replayed: boolean;
}

/** The header's value, validated; null when absent. */
export function idempotencyKeyOf(req: Request): string | null {
  const key = req.headers.get(IDEMPOTENCY_HEADER);
  if (key === null) return null;
  if (!KEY_PATTERN.test(key)) {
    throw new AppError(
      "BAD_REQUEST",
      "The Idempotency-Key header must be 1–200 printable ASCII characters (a UUID is a good choice).",
      "Idempotency-Key",
    );
  }
  return key;
}

/** The same JSON body with its keys in another order is the same request (a client's serialiser may reorder). */
const hashOf = (r: IdempotentRequest, serialise: (v: unknown) => string = canonicalJson) =>
  createHash("sha256")
    .update(`${r.method} ${r.path}\n${serialise(r.body ?? null)}`)
    .digest("hex");

async function replay(db: PrismaClient, r: IdempotentRequest, requestHash: string): Promise<StoredResponse | null> {
  const found = await db.idempotencyKey.findUnique({ where: { tokenId_key: { tokenId: r.tokenId, key: r.key } } });
  if (!found) return null;
  // Keys stored before bodies were hashed canonically (at most KEY_TTL_DAYS old) hashed JSON.stringify's text.
  if (found.requestHash !== requestHash && found.requestHash !== hashOf(r, JSON.stringify)) {
    throw new AppError(
      "UNPROCESSABLE_CONTENT",
      `This Idempotency-Key was already used for a different request (${found.method} ${found.path}); use a new key for a new request.`,
      "Idempotency-Key",
    );
  }
  return { status: found.status, body: found.response, replayed: true };
}

/**
 * Runs `create` (inside a transaction, given the transaction client) unless this key already has a response, and
 * stores its response with the key atomically.
 */
export async function withIdempotency(
  db: PrismaClient,
  r: IdempotentRequest,
  create: (tx: PrismaClient) => Promise<{ status: number; body: unknown }>,
): Promise<StoredResponse> {
  const requestHash = hashOf(r);
  const earlier = await replay(db, r, requestHash);
  if (earlier) return earlier;
  try {
    const created = await db.$transaction(async (tx) => {
      const out = await create(tx as unknown as PrismaClient);
      await tx.idempotencyKey.create({
        data: {
          tokenId: r.tokenId,
          key: r.key,
          method: r.method,
          path: r.path,
          requestHash,
          status: out.status,
          response: out.body as Prisma.InputJsonValue,
        },
      });
      return out;
    });
    await db.idempotencyKey.deleteMany({ where: { createdAt: { lt: new Date(Date.now() - KEY_TTL_DAYS * 86_400_000) } } }).catch(() => {});
    return { ...created, replayed: false };
  } catch (error) {
    // A concurrent request with the same key committed first: its response is the answer.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const winner = await replay(db, r, requestHash);
      if (winner) return winner;
    }
    throw error;
  }
}
