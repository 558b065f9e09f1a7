/**
 * A loopback HTTP proxy in front of the real server that can answer with faults instead of forwarding: what a
 * logging client meets on a real network (a restarting server's 5xx, a rate limit's 429, a server that is gone). The
 * server behind it is the real one; only the faults are made up.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** What to do with one request: forward it (null), answer with this status, or close the connection. */
export type Fault = number | "hang-up" | null;

export interface FlakyProxy {
  url: string;
  port: number;
  /** Requests seen, by path and the fault applied. */
  log: { method: string; path: string; fault: Fault }[];
  setFault(fault: (req: { method: string; path: string; n: number }) => Fault): void;
  close(): Promise<void>;
}

export async function startFlakyProxy(target: string, port = 0): Promise<FlakyProxy> {
  let decide: (req: { method: string; path: string; n: number }) => Fault = () => null;
  const log: FlakyProxy["log"] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = req.url ?? "/";
    const fault = decide({ method: req.method ?? "GET", path, n: log.length });
    log.push({ method: req.method ?? "GET", path, fault });
    if (fault === "hang-up") return req.socket.destroy();
    if (typeof fault === "number") {
      res.writeHead(fault, { "content-type": "application/json", ...(fault === 429 ? { "retry-after": "1" } : {}) });
      return res.end(JSON.stringify({ error: { code: "FAULT", message: `injected ${fault}` } }));
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== "host" && k !== "content-length")) as Record<
      string,
      string
    >;
    const upstream = await fetch(target + path, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    log,
    setFault: (f) => (decide = f),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
