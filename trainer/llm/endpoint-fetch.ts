/**
 * The `fetch` the trainer's openai SDK clients use: the endpoint policy (lib/llm-endpoint-policy.ts) applied to the
 * address a request actually connects to. The URL's text was checked when the run was created, but a name can
 * resolve anywhere, and resolve differently a second later (DNS rebinding): so the check runs inside the socket's
 * own DNS lookup, and the connection goes to exactly the address that passed. Redirects are never followed (a
 * public endpoint could otherwise bounce the request, with its Authorization header, to a private one).
 *
 * Node's global fetch cannot take a custom lookup without the undici package, so this is a small fetch over
 * node:http(s): enough for the SDK's JSON requests (string or byte bodies, an abort signal, streamed replies).
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import os from "node:os";
import { Readable } from "node:stream";
import { endpointUrlProblem, resolvedAddressProblem, type LlmEndpointPolicy } from "../../lib/llm-endpoint-policy";
import { classifyHost } from "../../lib/network-address";

/** An endpoint the policy refuses; never retried, and its message is ours (no text from the endpoint). */
export class EndpointRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EndpointRefusedError";
  }
}

export interface EndpointFetchOptions {
  policy: LlmEndpointPolicy;
  /** DNS lookup (tests substitute a resolver; default dns.lookup). */
  lookup?: typeof dns.lookup;
  /** This machine's interface addresses (default: os.networkInterfaces()). */
  localAddresses?: () => string[];
}

type LookupAddress = { address: string; family: number };
/** The SDK's fetch type: what the openai client calls. */
export type EndpointFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/** A lookup that refuses the whole name if any address it resolves to is refused, and connects only to those checked. */
function checkedLookup(url: URL, opts: EndpointFetchOptions, locals: () => string[]): LookupFunction {
  const resolve = opts.lookup ?? dns.lookup;
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, found) => {
      if (err) return callback(err, "", 4);
      const addresses = found as unknown as LookupAddress[];
      for (const a of addresses) {
        const problem = resolvedAddressProblem(url, a.address, opts.policy, locals());
        if (problem) return callback(new EndpointRefusedError(problem), "", 4);
      }
      if (addresses.length === 0) return callback(new EndpointRefusedError(`${hostname} resolved to no address.`), "", 4);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

async function bodyBytes(body: RequestInit["body"]): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Buffer.from(await new Response(body).arrayBuffer());
}

function responseHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i], raw[i + 1]);
    } catch {
      // a header value fetch's Headers refuses: drop it rather than fail the call
    }
  }
  return headers;
}

/** A fetch bound to `policy`: refuses by URL, by resolved address, and any redirect. */
export function createEndpointFetch(opts: EndpointFetchOptions): EndpointFetch {
  let cachedLocals: string[] | null = null;
  const locals = opts.localAddresses ?? (() => (cachedLocals ??= interfaceAddresses()));
  const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

  return async (input, init = {}) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const refused = endpointUrlProblem(url.href, opts.policy);
    if (refused) throw new EndpointRefusedError(refused);
    // A literal address is never looked up: check it (against this machine's interfaces too) here instead.
    const literal = classifyHost(url.hostname);
    if (literal.ip) {
      const problem = resolvedAddressProblem(url, literal.ip, opts.policy, locals());
      if (problem) throw new EndpointRefusedError(problem);
    }
    const protocol = url.protocol as "http:" | "https:";
    const body = await bodyBytes(init.body);
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    if (body) headers["content-length"] = String(body.length);

    return new Promise<Response>((resolve, reject) => {
      const req = (protocol === "https:" ? https : http).request(url, {
        method: init.method ?? "GET",
        headers,
        agent: agents[protocol],
        lookup: checkedLookup(url, opts, locals),
        signal: init.signal ?? undefined,
      });
      req.once("error", (err) => reject(err));
      req.once("response", (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.resume();
          let target = "";
          try {
            target = res.headers.location ? ` to ${new URL(res.headers.location, url).origin}` : "";
          } catch {
            // an unparsable Location: say nothing about it
          }
          reject(
            new EndpointRefusedError(
              `${url.origin} answered a ${status} redirect${target}; redirects are not followed: set baseUrl to the endpoint's final address.`,
            ),
          );
          return;
        }
        try {
          const stream = NULL_BODY_STATUSES.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          if (!stream) res.resume();
          resolve(new Response(stream, { status, statusText: res.statusMessage ?? "", headers: responseHeaders(res.rawHeaders) }));
        } catch (err) {
          res.destroy();
          reject(err); // e.g. a status fetch's Response cannot represent
        }
      });
      req.end(body);
    });
  };
}
