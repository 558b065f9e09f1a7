/**
 * Who may play: API tokens exactly as for the REST API (db/api-tokens.ts; playing records runs, so the token needs
 * the "ingest" scope, which "write" includes). A token is required whenever the server is reachable beyond loopback; on loopback the server
 * is open like the dashboard without a password, and a token, when sent, still names the owner of the sessions.
 *
 * The token travels as `Authorization: Bearer rl_…`, or as HTTP Basic credentials (token as the password, or as the
 * user with an empty password) for clients that cannot set headers: OpenEnv's own client connects with
 * `websockets.connect(url)` and only URL credentials (`ws://x:rl_…@host/…`) become a header there. A browser's
 * WebSocket can set neither, only subprotocols: `rollout-lab.bearer.<token>` in that list is accepted too.
 *
 * Browsers: a WebSocket cannot carry headers and any page may open one to 127.0.0.1, so a request with an `Origin`
 * is refused unless that origin is this machine's loopback or the request carries a token.
 */
import type { IncomingMessage } from "node:http";
import type { PrismaClient } from "../../generated/prisma/client";
import { checkApiToken, hashToken, scopeProblem } from "../../db/api-tokens";
import { RequestError, WS_ERROR } from "./protocol";
import { LOCAL_OWNER, type Owner } from "./session";

/** A verified token is trusted this long before the database is asked again (a revocation takes effect within it). */
const CACHE_MS = 30_000;
const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || host.startsWith("127.");
}

/** Subprotocols a WebSocket client offered (`Sec-WebSocket-Protocol`). */
export function offeredProtocols(req: IncomingMessage): string[] {
  return (req.headers["sec-websocket-protocol"] ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
}

const PROTOCOL_TOKEN = "rollout-lab.bearer.";

function credentials(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  const viaProtocol = offeredProtocols(req).find((p) => p.startsWith(PROTOCOL_TOKEN));
  if (!header) return viaProtocol ? viaProtocol.slice(PROTOCOL_TOKEN.length) : null;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+(\S+)\s*$/i.exec(header);
  if (basic) {
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const user = colon < 0 ? decoded : decoded.slice(0, colon);
    const password = colon < 0 ? "" : decoded.slice(colon + 1);
    return password || user;
  }
  throw new RequestError(
    401,
    WS_ERROR.session,
    "The Authorization header must be `Bearer <token>` (or Basic credentials whose password is the token).",
  );
}

export class AccessGate {
  private readonly cache = new Map<string, { owner: Owner; until: number }>();

  constructor(
    private readonly db: PrismaClient,
    readonly tokenRequired: boolean,
  ) {}

  /** The session owner for a request, or a 401 / 403 RequestError saying what to send. */
  async ownerOf(req: IncomingMessage): Promise<Owner> {
    const token = credentials(req);
    const origin = req.headers.origin;
    if (origin && !token && !loopbackOrigin(origin))
      throw new RequestError(
        403,
        WS_ERROR.session,
        `Requests from web pages on ${origin} are refused: only pages on this machine's loopback may connect without a token.`,
      );
    if (!token) {
      if (!this.tokenRequired) return LOCAL_OWNER;
      throw new RequestError(
        401,
        WS_ERROR.session,
        "This environment server needs an API token with the write scope: send `Authorization: Bearer rl_…`, or put it in the URL as ws://token:rl_…@host/… (create one in Settings or with `rollout-lab tokens create --scope write`).",
      );
    }
    const key = hashToken(token);
    const hit = this.cache.get(key);
    if (hit && hit.until > Date.now()) return hit.owner;
    const check = await checkApiToken(this.db, token);
    if (!check.ok) throw new RequestError(401, WS_ERROR.session, check.message);
    const problem = scopeProblem(check.token, "ingest");
    if (problem) throw new RequestError(403, WS_ERROR.session, `${problem} (playing episodes records runs).`);
    const owner: Owner = { key: check.token.id, name: check.token.name, tokenPrefix: check.token.prefix, runId: check.token.runId ?? null };
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { owner, until: Date.now() + CACHE_MS });
    return owner;
  }
}

function loopbackOrigin(origin: string): boolean {
  try {
    return isLoopbackHost(new URL(origin).hostname);
  } catch {
    return false;
  }
}
