/**
 * The tRPC endpoint over HTTP, with the input checks the REST API has: a body size limit (413, not a parse error of a
 * truncated body), at most MAX_BATCH calls per request (one request of 1,000 calls held the server 8 s), JSON that
 * parses to what the superjson transformer expects (a `null` body crashed it), and no NUL, lone surrogates or absurd
 * nesting (they reached the database and came back as 500s). Refusals are tRPC error envelopes with status 400/413,
 * so the dashboard's client reports them like any other input error.
 */
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "../api/root";
import { createTrpcContext } from "../api/trpc";
import { AppError, HTTP_STATUS } from "../errors";
import { assertSafeInput, MAX_REQUEST_BODY_BYTES, readBodyText } from "./input-safety";
import { ResponseCache } from "./response-cache";

/**
 * Dashboard tabs poll the same queries every 2–5 s (thirty tabs on one run page ask for the same curves): identical
 * reads within READ_CACHE_MS share one database round trip and one serialisation. Fresh enough for pages that poll
 * at 2 s; any write through this server clears it.
 */
const READ_CACHE_MS = 1000;
const readCache = new ResponseCache(READ_CACHE_MS);

export const TRPC_ENDPOINT = "/api/trpc";
/** The dashboard batches at most this many calls (components/providers/trpc-provider.tsx uses the same). */
export const MAX_BATCH = 50;
/** A launch config is a few KiB; tRPC inputs are small. */
export const MAX_TRPC_BODY_BYTES = MAX_REQUEST_BODY_BYTES;

const TRPC_CODES: Record<string, number> = { BAD_REQUEST: -32600, PAYLOAD_TOO_LARGE: -32600 };

function errorEnvelope(error: AppError, paths: string[], isBatch: boolean): Response {
  const status = HTTP_STATUS[error.code];
  const one = (path: string) => ({
    error: {
      json: {
        message: error.message,
        code: TRPC_CODES[error.code] ?? -32600,
        data: { code: error.code, httpStatus: status, path, field: error.field },
      },
    },
  });
  const body = isBatch ? paths.map(one) : one(paths[0]);
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store" } });
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("BAD_REQUEST", `${what} is not valid JSON.`);
  }
}

/** The inputs of the call(s), checked before tRPC (and superjson) see them; returns the body text to pass on. */
async function checkedBody(req: Request, url: URL, isBatch: boolean): Promise<string | null> {
  if (req.method === "GET") {
    const raw = url.searchParams.get("input");
    if (raw !== null) assertSafeInput(parseJson(raw, "The input query parameter"));
    return null;
  }
  const text = await readBodyText(req, MAX_TRPC_BODY_BYTES);
  if (text.trim() === "") return text;
  const body = parseJson(text, "The request body");
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new AppError(
      "BAD_REQUEST",
      isBatch
        ? 'The body of a batched call must be an object keyed by call index: {"0": {"json": …}, …}.'
        : 'The request body must be an object {"json": <input>} (tRPC with the superjson transformer).',
    );
  }
  assertSafeInput(body);
  return text;
}

export async function handleTrpcRequest(req: Request): Promise<Response> {
  const url = new URL(req.url);
  if (req.method !== "GET") {
    // A write may change anything a cached read returned: the next poll must see it.
    readCache.clear();
    return handleUncached(req, url);
  }
  return readCache.get(`${url.pathname}?${url.search}`, () => handleUncached(req, url));
}

async function handleUncached(req: Request, url: URL): Promise<Response> {
  const isBatch = url.searchParams.get("batch") === "1";
  const paths = decodeURIComponent(url.pathname.slice(TRPC_ENDPOINT.length + 1)).split(",");
  let body: string | null;
  try {
    if (isBatch && paths.length > MAX_BATCH) {
      throw new AppError("BAD_REQUEST", `A batch may hold at most ${MAX_BATCH} calls; this one has ${paths.length}. Split it.`);
    }
    body = await checkedBody(req, url, isBatch);
  } catch (error) {
    if (error instanceof AppError) return errorEnvelope(error, paths, isBatch);
    throw error;
  }
  const forwarded = body === null ? req : new Request(req.url, { method: req.method, headers: req.headers, body });
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req: forwarded,
    router: appRouter,
    createContext: () => createTrpcContext(),
    maxBatchSize: MAX_BATCH,
  });
}
