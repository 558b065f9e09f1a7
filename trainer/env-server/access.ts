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
 * is refused unless that origin is this machine's loopback or the request carries a token. Both are judged on parsed
 * values: loopback is an IP literal in 127.0.0.0/8, `::1` or the name `localhost` exactly — never a name that merely
 * starts with "127." (`http://127.0.0.1.evil.example` is a page anyone can serve). The Host header must name this
 * server, as for the web server (lib/allowed-hosts.ts): otherwise a page that points its own domain at 127.0.0.1
 * (DNS rebinding) would be same-origin with the server and send no telling Origin at all.
 *
 * Server-side keys: a reset whose `llm` names endpoints makes this server call them, with the key variables it names
 * (`apiKeyEnv`) read from this host's environment. That is what launching a run does, so it needs a token with the
 * "write" scope, even on loopback: without one, any local process (or a page that got past the checks above) could
 * have the host's `*_API_KEY` sent to a URL of its choosing. An "ingest" token plays with the offline simulators.
 */
import type { IncomingMessage } from "node:http";
import type { PrismaClient } from "../../generated/prisma/client";
import { checkApiToken, grants, hashToken, scopeProblem } from "../../db/api-tokens";
import { allowedHostnames, hostHeaderProblem } from "../../lib/allowed-hosts";
import { scopeOfAddress } from "../../lib/network-address";
import { RequestError, WS_ERROR } from "./protocol";
import { LOCAL_OWNER, type Owner } from "./session";

/** A verified token is trusted this long before the database is asked again (a revocation takes effect within it). */
const CACHE_MS = 30_000;
/**
 * True for an address of this machine's loopback only: an IP literal in 127.0.0.0/8 or ::1 (bracketed or not, also
 * IPv4-mapped), or exactly `localhost`. A name is never judged by its text ("127.evil.example" is anyone's).
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  return h === "localhost" || scopeOfAddress(h) === "loopback";
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

  private allowedHosts: Set<string> | null;

  constructor(
    private readonly db: PrismaClient,
    readonly tokenRequired: boolean,
    /** The operator's ROLLOUT_LAB_ALLOWED_HOSTS / ROLLOUT_LAB_PUBLIC_URL. */
    private readonly hostEnv: Record<string, string | undefined> = process.env,
  ) {
    this.allowedHosts = allowedHostnames(hostEnv);
  }

  /** The address the server listens on is a name it answers to (known once it listens). */
  answerTo(bindHost: string): void {
    this.allowedHosts = allowedHostnames({ ...this.hostEnv, HOST: bindHost });
  }

  /** A 403 RequestError when the Host header does not name this server (DNS rebinding); checked on every request. */
  checkHost(req: IncomingMessage): void {
    const problem = hostHeaderProblem(req.headers.host, this.allowedHosts);
    if (problem) throw new RequestError(403, WS_ERROR.session, problem);
  }

  /** The session owner for a request, or a 401 / 403 RequestError saying what to send. */
  async ownerOf(req: IncomingMessage): Promise<Owner> {
    this.checkHost(req);
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
    const owner: Owner = {
      key: check.token.id,
      name: check.token.name,
      tokenPrefix: check.token.prefix,
      mayCallEndpoints: grants(check.token, "write"),
      runId: check.token.runId ?? null,
    };
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
