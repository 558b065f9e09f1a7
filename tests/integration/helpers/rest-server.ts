/** The REST API's own handler on a loopback port (no Next build needed): what the CLI talks to. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { PrismaClient } from "../../../db/client";
import { TokenBucketLimiter } from "../../../server/auth/rate-limit";
import { handleRestRequest } from "../../../server/rest/handler";

export async function serveRest(db: PrismaClient): Promise<{ url: string; close(): Promise<void> }> {
  const limiter = new TokenBucketLimiter({ perMinute: 10_000, burst: 1_000 });
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      ...(body && req.method !== "GET" ? { body } : {}),
    });
    const response = await handleRestRequest(request, { db, limiter });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}
