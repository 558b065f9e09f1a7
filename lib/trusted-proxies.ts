/**
 * Which peers may tell this server who the client is (ROLLOUT_LAB_TRUSTED_PROXIES), and who the client then is.
 *
 * X-Forwarded-For is written by whoever sends the request: a client with no proxy in front can put anything in it,
 * and a proxy that appends keeps whatever the client put first. So the header is read only when the connection
 * comes from a listed proxy, and then from the right: each hop a trusted proxy added is skipped, and the first
 * address no listed proxy vouches for (the right-most untrusted hop) is the client. Nothing listed (the default):
 * the client is the socket's own address, whatever the headers say.
 */
import { BlockList, isIP } from "node:net";
import { canonicalAddress } from "./network-address";

export const TRUSTED_PROXIES_VAR = "ROLLOUT_LAB_TRUSTED_PROXIES";

/** Node reports IPv4 peers of a dual-stack socket as "::ffff:a.b.c.d"; proxies write "a.b.c.d". */
function unmapped(address: string): string {
  const m = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return m ? m[1] : address;
}

/** One X-Forwarded-For entry as a bare address: some proxies add a port ("1.2.3.4:5678", "[::1]:80"). */
export function bareAddress(entry: string): string | null {
  let s = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1];
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":"));
  s = unmapped(s.replace(/%.*$/, ""));
  return isIP(s) ? s.toLowerCase() : null;
}

export interface TrustedProxies {
  /** The list as configured, for messages. */
  entries: string[];
  has(address: string): boolean;
}

/**
 * "127.0.0.1, 10.0.0.0/8, ::1" → a matcher; throws an Error whose message names the variable and the bad entry.
 * Empty or unset: nobody is trusted.
 */
export function parseTrustedProxies(raw: string | undefined): TrustedProxies {
  const entries = (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits, extra] = entry.split("/");
    const ip = bareAddress(address);
    const family = ip ? isIP(ip) : 0;
    const max = family === 6 ? 128 : 32;
    const prefix = bits === undefined ? max : Number(bits);
    if (!ip || extra !== undefined || !/^\d*$/.test(bits ?? "") || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
      throw new Error(
        `${TRUSTED_PROXIES_VAR} lists "${entry}", which is not an IP address or CIDR range; use e.g. 127.0.0.1 or 10.0.0.0/8 (comma-separated).`,
      );
    }
    list.addSubnet(ip, prefix, family === 6 ? "ipv6" : "ipv4");
  }
  return {
    entries,
    has: (address) => {
      const ip = bareAddress(address);
      return ip !== null && entries.length > 0 && list.check(ip, isIP(ip) === 6 ? "ipv6" : "ipv4");
    },
  };
}

/**
 * The client's address: the socket's peer unless that peer is a trusted proxy, then X-Forwarded-For read from the
 * right past every trusted hop. An entry that is not an address ends the walk and is the client (as text, capped),
 * since no trusted proxy writes one.
 */
export function resolveClientAddress(peer: string, forwardedFor: string | null, trusted: TrustedProxies): string {
  let client = bareAddress(peer) ?? peer.slice(0, 100);
  if (!trusted.has(client) || !forwardedFor) return client;
  const hops = forwardedFor.split(",").map((s) => s.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    if (hops[i] === "") continue;
    const hop = bareAddress(hops[i]);
    if (!hop) return hops[i].slice(0, 100);
    client = hop;
    if (!trusted.has(hop)) return hop;
  }
  // Every hop was a trusted proxy: the left-most is as close to the client as anyone can tell.
  return client;
}

/**
 * The key one client is counted under: its IPv4 address, or for IPv6 its /64. One host is usually given a whole /64
 * and can send from any address in it, so counting single IPv6 addresses would make one guesser 2^64 fresh clients.
 */
export function clientKey(address: string): string {
  const canonical = canonicalAddress(address);
  if (!canonical) return address;
  return canonical.includes(":") ? `${canonical.split(":").slice(0, 4).join(":")}::/64` : canonical;
}
