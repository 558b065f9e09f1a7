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
import os from "node:os";

export interface GuardRefusal {
  status: 403;
  code: "FORBIDDEN";
  message: string;
}

export type GuardEnv = Record<string, string | undefined> & {
  HOST?: string;
  ROLLOUT_LAB_ALLOWED_HOSTS?: string;
  ROLLOUT_LAB_PUBLIC_URL?: string;
};

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** "example.com:3000" / "[::1]:3000" / "127.0.0.1" → the host name, lower case, without brackets or port. */
export function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]"));
  const colon = h.lastIndexOf(":");
  return colon > 0 && h.indexOf(":") === colon ? h.slice(0, colon) : h;
}

function machineNames(): string[] {
  const addresses = Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address.toLowerCase()));
  return [os.hostname().toLowerCase(), ...addresses];
}

/** The host names this server answers to; null when the check is off ("*"). */
export function allowedHostnames(env: GuardEnv): Set<string> | null {
  const listed = (env.ROLLOUT_LAB_ALLOWED_HOSTS ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (listed.includes("*")) return null;
  const names = new Set(["localhost", "127.0.0.1", "::1", ...listed, ...machineNames()]);
  if (env.HOST) names.add(hostnameOf(env.HOST));
  if (env.ROLLOUT_LAB_PUBLIC_URL) {
    try {
      names.add(new URL(env.ROLLOUT_LAB_PUBLIC_URL).hostname.replace(/^\[|\]$/g, "").toLowerCase());
    } catch {
      // an invalid URL is reported by lib/env.ts at start-up
    }
  }
  return names;
}

export function checkRequest(req: { method: string; headers: Headers }, allowed: Set<string> | null, env: GuardEnv): GuardRefusal | null {
  const host = req.headers.get("host");
  if (allowed && (!host || !allowed.has(hostnameOf(host)))) {
    return {
      status: 403,
      code: "FORBIDDEN",
      message: `This server does not answer to the host name "${host ?? ""}". If you reach it under that name on purpose, add it to ROLLOUT_LAB_ALLOWED_HOSTS.`,
    };
  }
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
