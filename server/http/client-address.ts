/**
 * Who sent a request, for throttling sign-in attempts. A Next route handler sees headers only, not the socket, so
 * scripts/http-guard.mjs (preloaded into the web server) writes the socket's peer address into PEER_HEADER on every
 * request, replacing any copy a client sent. The trust rules are in lib/trusted-proxies.ts.
 */
import { parseTrustedProxies, resolveClientAddress, type TrustedProxies } from "../../lib/trusted-proxies";

/** Set by scripts/http-guard.mjs; keep the two spellings equal. */
export const PEER_HEADER = "x-rollout-lab-peer";

let cached: { raw: string | undefined; trusted: TrustedProxies } | undefined;

function trustedProxies(env: Record<string, string | undefined>): TrustedProxies {
  const raw = env.ROLLOUT_LAB_TRUSTED_PROXIES;
  if (!cached || cached.raw !== raw) cached = { raw, trusted: parseTrustedProxies(raw) };
  return cached.trusted;
}

/**
 * The client's address, or "unknown" when the server runs without http-guard.mjs (then every client shares one
 * record: throttling stays on, it just cannot tell clients apart).
 */
export function clientAddress(headers: Headers, env: Record<string, string | undefined> = process.env): string {
  const peer = headers.get(PEER_HEADER);
  if (!peer) return "unknown";
  return resolveClientAddress(peer, headers.get("x-forwarded-for"), trustedProxies(env));
}

/** Did this request come through a listed proxy (so its X-Forwarded-Host / -Proto are the proxy's, not a client's)? */
export function fromTrustedProxy(headers: Headers, env: Record<string, string | undefined> = process.env): boolean {
  const peer = headers.get(PEER_HEADER);
  return peer !== null && trustedProxies(env).has(peer);
}
