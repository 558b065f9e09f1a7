/**
 * What kind of address a host is, for deciding where a run config may send requests (llm-endpoint-policy.ts).
 * Pure string arithmetic, no DNS: names are classified only when RFC 6761 fixes their meaning ("localhost");
 * every other name is classified again by the caller once it has been resolved.
 *
 * Hosts are read the way the WHATWG URL parser (Node's and every browser's) normalises them, so the spellings an
 * attacker uses to slip past a string match all land on one canonical address first: `2130706433`, `0x7f.1`,
 * `0177.0.0.1` and `127.1` are all 127.0.0.1; `[::ffff:127.0.0.1]` is an IPv4-mapped loopback.
 */

export type AddressScope =
  /** 127/8, ::1, and names under "localhost". */
  | "loopback"
  /** 0.0.0.0/8 and "::": connecting to them reaches this machine. */
  | "unspecified"
  /** RFC 1918, CGNAT 100.64/10, benchmarking 198.18/15, IETF 192.0.0/24, IPv6 unique-local fc00::/7 and site-local. */
  | "private"
  /** 169.254/16 and fe80::/10, where cloud metadata services answer. */
  | "link-local"
  /** Multicast, broadcast and reserved blocks: never a web server. */
  | "reserved"
  | "public";

export interface ClassifiedHost {
  /** The host as the URL parser normalised it, without IPv6 brackets or a trailing dot. */
  host: string;
  /** The address when the host is an IP literal. */
  ip: string | null;
  scope: AddressScope | "name";
}

/** "a.b.c.d" → 32-bit number; null unless exactly four decimal parts (the URL parser has already normalised). */
function parseDottedIpv4(s: string): number | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
}

const formatIpv4 = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");

/** Eight 16-bit groups, or null. Accepts "::" compression, an IPv4 tail and a zone id ("fe80::1%eth0"). */
function parseIpv6(input: string): number[] | null {
  const s = input.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!s.includes(":")) return null;
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groupsOf = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const items = part.split(":");
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (i === items.length - 1 && item.includes(".")) {
        const v4 = parseDottedIpv4(item);
        if (v4 === null) return null;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else if (/^[0-9a-f]{1,4}$/i.test(item)) out.push(parseInt(item, 16));
      else return null;
    }
    return out;
  };
  const head = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...Array<number>(missing).fill(0), ...tail] : null;
}

/** The IPv4 address an IPv6 address carries when it is only a wrapper for one (mapped, compatible, NAT64, 6to4). */
function embeddedIpv4(g: number[]): number | null {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const tail = ((g[6] << 16) | g[7]) >>> 0;
  if (zeros(0, 5) && g[5] === 0xffff) return tail; // ::ffff:a.b.c.d (IPv4-mapped)
  if (zeros(0, 6) && (g[6] !== 0 || g[7] > 1)) return tail; // ::a.b.c.d (IPv4-compatible, deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return tail; // 64:ff9b::/96 (NAT64 well-known prefix)
  if (g[0] === 0x2002) return ((g[1] << 16) | g[2]) >>> 0; // 2002::/16 (6to4)
  return null;
}

/** An IPv4 address (dotted, or wrapped in IPv6) as a number; null for anything else. */
function ipv4Of(ip: string): number | null {
  const v4 = parseDottedIpv4(ip);
  if (v4 !== null) return v4;
  const g = parseIpv6(ip);
  return g ? embeddedIpv4(g) : null;
}

const inV4 = (n: number, base: string, bits: number) => {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (n & mask) >>> 0 === (parseDottedIpv4(base)! & mask) >>> 0;
};

function scopeOfIpv4(n: number): AddressScope {
  if (inV4(n, "127.0.0.0", 8)) return "loopback";
  if (inV4(n, "0.0.0.0", 8)) return "unspecified";
  if (inV4(n, "169.254.0.0", 16)) return "link-local";
  if (
    inV4(n, "10.0.0.0", 8) ||
    inV4(n, "172.16.0.0", 12) ||
    inV4(n, "192.168.0.0", 16) ||
    inV4(n, "100.64.0.0", 10) ||
    inV4(n, "198.18.0.0", 15) ||
    inV4(n, "192.0.0.0", 24)
  )
    return "private";
  if (inV4(n, "224.0.0.0", 4) || inV4(n, "240.0.0.0", 4)) return "reserved"; // multicast; reserved and broadcast
  return "public";
}

function scopeOfIpv6(g: number[]): AddressScope {
  const v4 = embeddedIpv4(g);
  if (v4 !== null) return scopeOfIpv4(v4);
  if (g.every((x) => x === 0)) return "unspecified";
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "loopback";
  if ((g[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0] & 0xfe00) === 0xfc00 || (g[0] & 0xffc0) === 0xfec0) return "private"; // unique-local; deprecated site-local
  if ((g[0] & 0xff00) === 0xff00) return "reserved"; // multicast
  if (g[0] === 0x100 && g.slice(1, 4).every((x) => x === 0)) return "reserved"; // 100::/64 discard
  return "public";
}

/** The scope of an IP address string (as dns.lookup returns it); null when it is not an IP address. */
export function scopeOfAddress(ip: string): AddressScope | null {
  const v4 = parseDottedIpv4(ip);
  if (v4 !== null) return scopeOfIpv4(v4);
  const g = parseIpv6(ip);
  return g ? scopeOfIpv6(g) : null;
}

/** Classify the host of a parsed URL (`url.hostname`). */
export function classifyHost(hostname: string): ClassifiedHost {
  const host = hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  const scope = scopeOfAddress(host);
  if (scope) return { host, ip: host, scope };
  if (host === "localhost" || host.endsWith(".localhost")) return { host, ip: null, scope: "loopback" };
  return { host, ip: null, scope: "name" };
}

/** Cloud metadata endpoints outside link-local ranges (Alibaba's sits in CGNAT space, AWS's IPv6 in fc00::/7). */
const METADATA_ADDRESSES = ["100.100.100.200", "fd00:ec2::254", "192.0.0.192"];

/** One spelling per address: dotted IPv4 (also for IPv4 wrapped in IPv6), else eight hex groups. */
export function canonicalAddress(ip: string): string | null {
  const v4 = ipv4Of(ip);
  if (v4 !== null) return formatIpv4(v4);
  const g = parseIpv6(ip);
  return g ? g.map((x) => x.toString(16)).join(":") : null;
}

const metadata = new Set(METADATA_ADDRESSES.map((a) => canonicalAddress(a)));

/** A cloud metadata service's address (169.254.169.254 is link-local and refused as such). */
export function isMetadataAddress(ip: string): boolean {
  return metadata.has(canonicalAddress(ip));
}
