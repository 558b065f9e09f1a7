/**
 * The /api/v1 dispatcher: route lookup, bearer-token authentication (401), per-token rate limit (429 +
 * Retry-After), scope check (403), input assembly (query / JSON body + path parameters), then the procedure or
 * stream the route table names. Every failure is a JSON error body (errors.ts); tokens are never logged.
 */
import { getPrisma, type PrismaClient } from "../../db/client";
import { AppError } from "../errors";
import { assertScope, authenticateToken, type TokenInfo } from "../services/tokens";
import { TokenBucketLimiter, rateLimitFromEnv } from "../auth/rate-limit";
import { errorResponse, jsonResponse } from "./errors";
import { buildOpenApiDocument } from "./openapi";
import { callProcedure, procedureInput } from "./procedures";
import { queryToInput, readJsonObjectBody } from "./request-input";
import { assertSafeInput } from "../http/input-safety";
import { fromTrustedProxy } from "../http/client-address";
import { idempotencyKeyOf, withIdempotency } from "./idempotency";
import { matchRoute, type RestRoute } from "./routes";

export const API_PREFIX = "/api/v1";

export interface RestDeps {
  db: PrismaClient;
  limiter: TokenBucketLimiter;
}

const globalForRest = globalThis as unknown as { rolloutLabLimiter?: TokenBucketLimiter };

function defaultDeps(): RestDeps {
  globalForRest.rolloutLabLimiter ??= new TokenBucketLimiter(rateLimitFromEnv());
  return { db: getPrisma(), limiter: globalForRest.rolloutLabLimiter };
}

function bearer(req: Request): string | null {
  const header = req.headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError("UNAUTHORIZED", "The Authorization header must be `Bearer <token>`.");
  return match[1];
}

function decodeParams(params: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      throw new AppError("BAD_REQUEST", `The path parameter ${k} is not valid percent-encoding.`, k);
    }
  }
  return out;
}

async function assembleInput(
  req: Request,
  url: URL,
  route: RestRoute,
  params: Record<string, string>,
  token: TokenInfo,
): Promise<Record<string, unknown>> {
  const schema = route.kind === "procedure" ? procedureInput(route.procedure) : route.input;
  const input = route.method === "GET" ? queryToInput(url.searchParams, schema) : await readJsonObjectBody(req, route.maxBodyBytes);
  for (const [param, field] of Object.entries(route.params ?? {})) {
    if (field in input)
      throw new AppError(
        "BAD_REQUEST",
        `"${field}" comes from the URL path; remove it from the ${route.method === "GET" ? "query" : "body"}.`,
        field,
      );
    input[field] = params[param];
  }
  if (route.kind === "procedure" && route.launchInfo) {
    for (const field of ["source", "launchedByName"]) {
      if (field in input) throw new AppError("BAD_REQUEST", `"${field}" is set by the server from your API token; remove it.`, field);
    }
    input.source = req.headers.get("x-rollout-lab-client") === "cli" ? "cli" : "api";
    input.launchedByName = token.name;
  }
  return input;
}

/**
 * The origin the caller used (the Host header: Next's request URL says "localhost" whatever the client dialled; the
 * X-Forwarded-* headers only from a proxy listed in ROLLOUT_LAB_TRUSTED_PROXIES), or ROLLOUT_LAB_PUBLIC_URL when set
 * (behind a proxy that rewrites the host).
 */
function requestOrigin(req: Request, url: URL): string {
  if (process.env.ROLLOUT_LAB_PUBLIC_URL) return process.env.ROLLOUT_LAB_PUBLIC_URL.replace(/\/+$/, "");
  const proxied = fromTrustedProxy(req.headers);
  const host = (proxied ? req.headers.get("x-forwarded-host") : null) ?? req.headers.get("host");
  const proto = (proxied ? req.headers.get("x-forwarded-proto") : null) ?? url.protocol.replace(":", "");
  return host && /^[A-Za-z0-9.\-:[\]]+$/.test(host) && /^https?$/.test(proto) ? `${proto}://${host}` : url.origin;
}

/** Relative dashboard paths in results become absolute URLs a CI log can link to. */
function absoluteUrls(result: unknown, origin: string): unknown {
  if (result && typeof result === "object" && "url" in result && typeof result.url === "string" && result.url.startsWith("/")) {
    return { ...result, url: new URL(result.url, origin).toString() };
  }
  return result;
}

async function streamResponse(
  first: IteratorResult<string>,
  rest: AsyncGenerator<string>,
  headers: Record<string, string>,
): Promise<Response> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (!first.done) controller.enqueue(encoder.encode(first.value));
      if (first.done) controller.close();
    },
    async pull(controller) {
      try {
        const next = await rest.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        // Headers are gone; ending the stream early is the only signal left. The log has the cause.
        console.error("[rest] export stream failed", error);
        controller.error(error);
      }
    },
    async cancel() {
      await rest.return(undefined);
    },
  });
  return new Response(first.done ? "" : body, { status: 200, headers });
}

/**
 * A run-scoped token (the launcher's, for an outside engine) logs into its own run and nothing else: the
 * /external-runs/{id}/… routes with its run's id, except finish — the launcher settles the run from the engine's
 * exit code.
 */
function assertRunScope(token: { runId?: string | null; prefix: string }, path: string, params: Record<string, string>): void {
  if (!token.runId) return;
  const ownRun = path.startsWith("/external-runs/{id}/") && params.id === token.runId && !path.endsWith("/finish");
  if (!ownRun)
    throw new AppError(
      "FORBIDDEN",
      `The API token ${token.prefix}… belongs to run ${token.runId} and may only log steps and samples into it; use a token of your own for anything else.`,
    );
}

export async function handleRestRequest(req: Request, deps: RestDeps = defaultDeps()): Promise<Response> {
  const url = new URL(req.url);
  const path = url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) : url.pathname;
  const origin = requestOrigin(req, url);
  if (req.method === "GET" && path === "/openapi.json") return jsonResponse(buildOpenApiDocument(`${origin}${API_PREFIX}`));

  const matched = matchRoute(req.method, path);
  if (!matched) {
    return jsonResponse(
      {
        error: {
          code: "NOT_FOUND",
          message: `No endpoint ${req.method} ${API_PREFIX}${path}; see ${API_PREFIX}/openapi.json for the list.`,
        },
      },
      404,
    );
  }
  if ("allowed" in matched) {
    return jsonResponse(
      { error: { code: "METHOD_NOT_ALLOWED", message: `${API_PREFIX}${path} accepts ${matched.allowed.join(", ")}, not ${req.method}.` } },
      405,
      { allow: matched.allowed.join(", ") },
    );
  }
  const { route } = matched;
  let rateHeaders: Record<string, string> = {};
  try {
    const token = await authenticateToken(deps.db, bearer(req));
    const decision = deps.limiter.take(token.id);
    if (!decision.ok) {
      return jsonResponse(
        {
          error: {
            code: "TOO_MANY_REQUESTS",
            message: `Rate limit of ${deps.limiter.config.perMinute} requests per minute for this token exceeded; retry after ${decision.retryAfterSeconds} s.`,
          },
        },
        429,
        { "retry-after": String(decision.retryAfterSeconds) },
      );
    }
    rateHeaders = { "x-ratelimit-remaining": String(decision.remaining) };
    assertScope(token, route.scope);
    assertRunScope(token, route.path, decodeParams(matched.params));
    const input = await assembleInput(req, url, route, decodeParams(matched.params), token);
    assertSafeInput(input);

    if (route.kind === "jsonl") {
      const parsed = route.input.parse(input);
      const lines = route.stream(deps.db, parsed);
      const first = await lines.next(); // unknown run → 404 before any byte is sent
      return streamResponse(first, lines, {
        ...rateHeaders,
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="${route.filename(parsed)}"`,
        "cache-control": "no-store",
      });
    }
    const status = route.successStatus ?? 200;
    const key = route.idempotent ? idempotencyKeyOf(req) : null;
    if (key) {
      const stored = await withIdempotency(deps.db, { tokenId: token.id, key, method: req.method, path, body: input }, async (tx) => ({
        status,
        body: absoluteUrls(await callProcedure(tx, route.procedure, input), origin),
      }));
      return jsonResponse(stored.body, stored.status, { ...rateHeaders, ...(stored.replayed ? { "idempotent-replayed": "true" } : {}) });
    }
    const result = await callProcedure(deps.db, route.procedure, input);
    return jsonResponse(absoluteUrls(result, origin), status, rateHeaders);
  } catch (error) {
    const headers =
      error instanceof AppError && error.code === "UNAUTHORIZED"
        ? { ...rateHeaders, "www-authenticate": 'Bearer realm="rollout-lab"' }
        : rateHeaders;
    return errorResponse(error, headers);
  }
}
