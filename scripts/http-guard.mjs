// Preloaded into the web server (`node --import ./scripts/http-guard.mjs next start …`, see scripts/start.ts): answers
// the requests Next would mishandle before Next sees them, and records who is on the other end of the socket.
//   - A method no page or API serves (TRACE, CONNECT, PROPFIND…) is a 405: Next builds a fetch Request for proxy.ts
//     first, fetch refuses TRACE, and the answer was a 500.
//   - An API write whose Content-Length is over the limit is a 413 at once. Next copies every body for proxy.ts and
//     waits for its end even when proxy.ts has answered; so the limit is applied here, before anything is stored, and
//     the rest of the body is thrown away (lingerOnClose). An API write without a Content-Length (chunked) gets a
//     411: every client of this API (browsers, fetch, the CLI, Python's requests) sends the length, and a chunked body
//     could only be measured by reading it to the end.
//   - A page takes no body at all (no page has a form or server action that posts to it; sign-in posts to
//     /api/login): a request to a page path that carries one is a 413 before a byte is read. Next read such bodies
//     (up to 33 MB) before its login redirect, for anyone.
//   - An API query string whose %-escapes are not UTF-8 is a 400 naming the parameter (Next would pass "%FF" on
//     as U+FFFD, and the altered text would be stored or matched).
//   - The path is judged as Next routes it: dot segments resolved ("/./api/…", "/_next/../api/…" and their %2e
//     spellings reach the API, so they get its limits); a spelling read as no API path is a page and takes no body.
import http from "node:http";

// MAX_REQUEST_BODY_BYTES in server/http/input-safety.ts: every API body fits in 1 MiB, but for the ingest route that
// takes a whole run history in one request (MAX_HISTORY_BODY_BYTES in lib/ingest.ts, 32 MiB; the route enforces it
// again while reading).
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_HISTORY_BODY_BYTES = 32 * 1024 * 1024;
const HISTORY_ROUTE = /^\/api\/v1\/external-runs\/[^/?#]+\/batch(?:[?#]|$)/;

const bodyLimit = (method, path) => (method === "POST" && HISTORY_ROUTE.test(path) ? MAX_HISTORY_BODY_BYTES : MAX_BODY_BYTES);
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * The request target as a URL with dot segments resolved. Concatenated rather than resolved against a base, so
 * "//api/x" stays a path (Next redirects repeated slashes) instead of becoming the host "api"; an absolute-form
 * target ("http://host/api/…") is read as written.
 */
function targetUrl(req) {
  const raw = req.url ?? "/";
  try {
    return raw.startsWith("/") ? new URL(`http://x${raw}`) : new URL(raw);
  } catch {
    return new URL("http://x/");
  }
}

/** The error in the shape the path's clients read: tRPC's envelope, the REST error object, or text for pages. */
function refuse(req, res, status, code, message, headers = {}) {
  const url = targetUrl(req);
  let body;
  if (url.pathname.startsWith("/api/trpc/")) {
    const one = (path) => ({ error: { json: { message, code: -32600, data: { code, httpStatus: status, path } } } });
    let names = url.pathname.slice("/api/trpc/".length);
    try {
      names = decodeURIComponent(names);
    } catch {
      // keep the raw text
    }
    const paths = names.split(",");
    body = JSON.stringify(url.searchParams.get("batch") === "1" ? paths.map(one) : one(paths[0]));
  } else if (url.pathname.startsWith("/api/")) body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, {
    "content-type": body ? "application/json" : "text/plain; charset=utf-8",
    "cache-control": "no-store",
    connection: "close",
    ...headers,
  });
  lingerOnClose(req.socket);
  res.end(body ?? message);
}

/** How long the rest of a refused body is read and thrown away before the connection is cut (nginx: lingering close). */
const LINGER_MS = 2_000;

/**
 * A refused request's connection closes without losing the answer. Node ends a "connection: close" response with
 * socket.destroySoon(), which destroys the socket as soon as the answer is written; a client still sending its
 * (oversized) body then meets a kernel reset on the unread bytes and reports ECONNRESET instead of the 413 it was
 * sent (fetch does: it writes the whole body before reading). So for this socket only, destroySoon just closes our
 * side: the rest of the body is read and discarded by Node's parser (the request is dumped, nothing is stored), and
 * the socket goes when the client closes it, or after LINGER_MS at most.
 */
function lingerOnClose(socket) {
  socket.destroySoon = () => {
    socket.end();
    const cut = setTimeout(() => socket.destroy(), LINGER_MS);
    cut.unref();
    socket.once("close", () => clearTimeout(cut));
  };
}

/**
 * The name of the first query parameter of `search` ("a=1&b=%FF") whose %-escapes do not decode to UTF-8, or null.
 * Next re-encodes the query before a route sees it, "%FF" as U+FFFD, so this is the one place to see the bytes sent.
 */
function badQueryParameter(search) {
  for (const pair of search.split("&")) {
    const eq = pair.indexOf("=");
    const [name, value] = (eq < 0 ? [pair, ""] : [pair.slice(0, eq), pair.slice(eq + 1)]).map((part) => part.replace(/\+/g, " "));
    try {
      decodeURIComponent(name);
      decodeURIComponent(value);
    } catch {
      try {
        return decodeURIComponent(name);
      } catch {
        return name;
      }
    }
  }
  return null;
}

/** True when the request was answered here. */
function guard(req, res) {
  const method = (req.method ?? "GET").toUpperCase();
  if (!METHODS.includes(method)) {
    refuse(req, res, 405, "METHOD_NOT_ALLOWED", `${method} is not supported here; use ${METHODS.join(", ")}.`, {
      allow: METHODS.join(", "),
    });
    return true;
  }
  const target = targetUrl(req);
  const path = target.pathname;
  const badParameter = path.startsWith("/api/") && target.search ? badQueryParameter(target.search.slice(1)) : null;
  if (badParameter !== null) {
    const message = `The query parameter "${badParameter.slice(0, 60)}" is not valid UTF-8 once %-decoded (or has a broken %-escape); encode values with encodeURIComponent.`;
    refuse(req, res, 400, "BAD_REQUEST", message);
    return true;
  }
  const length = req.headers["content-length"];
  const chunked = length === undefined && req.headers["transfer-encoding"] !== undefined;
  if (!chunked && !(Number(length) > 0)) return false;
  if (!path.startsWith("/api/")) {
    refuse(req, res, 413, "PAYLOAD_TOO_LARGE", `This page takes no request body (${path.slice(0, 100)}); the API is under /api/.`);
    return true;
  }
  if (chunked) {
    refuse(req, res, 411, "LENGTH_REQUIRED", "Send the request body with a Content-Length header (chunked bodies are not accepted).");
    return true;
  }
  const limit = bodyLimit(method, path);
  if (Number(length) > limit) {
    const message = `The request body is larger than the ${limit.toLocaleString("en-US")} bytes this API accepts.`;
    refuse(req, res, 413, "PAYLOAD_TOO_LARGE", message);
    return true;
  }
  return false;
}

// PEER_HEADER in server/http/client-address.ts: a route handler sees headers, not the socket, so the socket's peer
// is written here, over any copy the client sent; X-Forwarded-For is believed only when this peer is a trusted proxy.
const PEER_HEADER = "x-rollout-lab-peer";

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...args) {
  if (event === "request") args[0].headers[PEER_HEADER] = args[0].socket?.remoteAddress ?? "";
  if (event === "request" && guard(args[0], args[1])) return true;
  return emit.call(this, event, ...args);
};
