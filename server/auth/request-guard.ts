/**
 * What every request must satisfy before it reaches a page or an API (checked in proxy.ts):
 *
 * Host: the Host header must name this server — its loopback names, the bind address, this machine's own
 * addresses and host name, the host of ROLLOUT_LAB_PUBLIC_URL, and any listed in ROLLOUT_LAB_ALLOWED_HOSTS ("*"
 * turns the check off, e.g. behind a proxy that forwards arbitrary names). Without it, a web page on any site can
 * point its own domain at 127.0.0.1 (DNS rebinding) and drive the dashboard API from the victim's browser.
 *
 * Origin (CSRF): a state-changing request (any method but GET/HEAD/OPTIONS) from a browser must come from this
 * origin. Browsers send `Origin` on such requests (and `Sec-Fetch-Site`); a request with neither comes from a
 * script or the CLI, which cannot ride on a victim's cookies, and is let through. Bearer-token REST calls cannot be
 * forged cross-site either (no CORS is offered), but are held to the same rule for simplicity.
 */
import { allowedHostnames, hostHeaderProblem, hostnameOf, type HostEnv } from "../../lib/allowed-hosts";

export { allowedHostnames, hostnameOf };

export interface GuardRefusal {
  status: 403;
  code: "FORBIDDEN";
  message: string;
}

export type GuardEnv = HostEnv;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function checkRequest(req: { method: string; headers: Headers }, allowed: Set<string> | null, env: GuardEnv): GuardRefusal | null {
  const host = req.headers.get("host");
  const hostProblem = hostHeaderProblem(host, allowed);
  if (hostProblem) return { status: 403, code: "FORBIDDEN", message: hostProblem };
  if (SAFE_METHODS.has(req.method.toUpperCase())) return null;
  const origin = req.headers.get("origin");
  if (origin !== null) {
    if (sameOrigin(origin, host, env)) return null;
    return { status: 403, code: "FORBIDDEN", message: `Cross-origin request refused: a page on ${origin} may not change anything here.` };
  }
  const site = req.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") {
    return {
      status: 403,
      code: "FORBIDDEN",
      message: "Cross-site request refused: only this dashboard's own pages may change anything here.",
    };
  }
  return null;
}

function sameOrigin(origin: string, host: string | null, env: GuardEnv): boolean {
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file://) and garbage
  }
  if (host && o.host.toLowerCase() === host.trim().toLowerCase()) return true;
  if (env.ROLLOUT_LAB_PUBLIC_URL) {
    try {
      return new URL(env.ROLLOUT_LAB_PUBLIC_URL).origin === o.origin;
    } catch {
      return false;
    }
  }
  return false;
}
