/**
 * The host names a Rollout Lab listener answers to (the DNS-rebinding check): its loopback names, the bind address,
 * this machine's own addresses and host name, the host of ROLLOUT_LAB_PUBLIC_URL, and any listed in
 * ROLLOUT_LAB_ALLOWED_HOSTS ("*" turns the check off). Shared by the web server (server/auth/request-guard.ts) and the
 * environment server (trainer/env-server/access.ts), which must not import server/.
 */
import os from "node:os";

export type HostEnv = Record<string, string | undefined> & {
  HOST?: string;
  ROLLOUT_LAB_ALLOWED_HOSTS?: string;
  ROLLOUT_LAB_PUBLIC_URL?: string;
};

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
export function allowedHostnames(env: HostEnv): Set<string> | null {
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

/** Why a request with this Host header is refused (one sentence), or null when the server answers to it. */
export function hostHeaderProblem(host: string | undefined | null, allowed: Set<string> | null): string | null {
  if (!allowed || (host && allowed.has(hostnameOf(host)))) return null;
  return `This server does not answer to the host name "${host ?? ""}". If you reach it under that name on purpose, add it to ROLLOUT_LAB_ALLOWED_HOSTS.`;
}
