/** JSON responses and bounded JSON bodies for the environment server's HTTP endpoints. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { RequestError, WS_ERROR } from "./protocol";

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text),
    "Cache-Control": "no-store",
    ...headers,
  });
  res.end(text);
}

/** Headers an error response carries: Retry-After on 503, the auth scheme on 401. */
export function errorHeaders(err: RequestError): Record<string, string> {
  if (err.status === 503) return { "Retry-After": String(err.details.retry_after ?? 5) };
  if (err.status === 401) return { "WWW-Authenticate": 'Bearer realm="rollout-lab"' };
  return {};
}

/** FastAPI's error shape (`detail`), plus the code and field a client can branch on. */
export function errorBody(err: RequestError): Record<string, unknown> {
  return { detail: err.message, code: err.code, ...(err.field ? { field: err.field } : {}), ...err.details };
}

/** The request's JSON body (undefined when empty); 413 past `limit` bytes, 400 when it is not JSON. */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers["content-length"] ?? 0);
  const tooBig = (n: number) =>
    new RequestError(
      413,
      WS_ERROR.validation,
      `The request body (${n} bytes) is over the server's limit of ${limit} bytes; send a shorter action.`,
    );
  if (declared > limit) throw tooBig(declared);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) throw tooBig(total);
    chunks.push(chunk);
  }
  if (total === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (e) {
    throw new RequestError(400, WS_ERROR.invalidJson, `The request body is not valid JSON: ${(e as Error).message}`);
  }
}
