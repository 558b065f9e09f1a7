/**
 * The dashboard password (DASHBOARD_PASSWORD): a login sets a signed HttpOnly cookie holding only an expiry and an
 * HMAC of it. The HMAC key is derived from the password (and SESSION_SECRET when set), so changing the password
 * signs everyone out. Web Crypto only, so the same code runs in proxy.ts and in server actions.
 */
export const SESSION_COOKIE = "rl_session";
export const SESSION_MAX_AGE_SECONDS = 7 * 24 * 3600;

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
  return Array.from(sig, (b) => b.toString(16).padStart(2, "0")).join("");
}

function keyMaterial(password: string): string {
  return `rollout-lab-session\u0000${password}\u0000${process.env.SESSION_SECRET ?? ""}`;
}

/** Equal-length strings compared without an early exit (no timing hint about how much matched). */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export function dashboardPassword(): string | null {
  const p = process.env.DASHBOARD_PASSWORD;
  return p && p.length > 0 ? p : null;
}

export async function checkPassword(candidate: string, password: string): Promise<boolean> {
  // Compare MACs of both rather than the strings themselves: equal length, constant time.
  const [a, b] = await Promise.all([hmacHex(keyMaterial(password), `pw:${candidate}`), hmacHex(keyMaterial(password), `pw:${password}`)]);
  return constantTimeEqual(a, b);
}

export async function createSessionValue(password: string, now = Date.now()): Promise<string> {
  const expires = now + SESSION_MAX_AGE_SECONDS * 1000;
  return `${expires}.${await hmacHex(keyMaterial(password), `v1.${expires}`)}`;
}

export async function verifySessionValue(value: string | undefined, password: string, now = Date.now()): Promise<boolean> {
  if (!value) return false;
  const match = /^(\d{1,16})\.([0-9a-f]{64})$/.exec(value);
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires <= now) return false;
  return constantTimeEqual(match[2], await hmacHex(keyMaterial(password), `v1.${expires}`));
}

/** Paths that stay reachable without the dashboard cookie: token-authenticated REST, health, and the login page. */
export function isPublicPath(pathname: string): boolean {
  return pathname.startsWith("/api/v1/") || pathname === "/api/health" || pathname === "/settings/login" || pathname === "/api/login";
}

const SITE = "http://rollout-lab.invalid";

/**
 * Where to go after signing in: a path on this site, or "/". Browsers drop tabs and newlines from URLs and read "\"
 * as "/", so "/\t/evil.example" is "//evil.example", another origin: those characters are removed first. The path is
 * then normalised (dot segments, "%2e" read as ".") and the *result* checked: "/.//evil.example" and "/a/..//x"
 * resolve to "//evil.example", which as a Location is another host. Returned percent-encoded, as it goes into a
 * Location header.
 */
export function safeNextPath(next: string | null | undefined): string {
  const cleaned = (next ?? "").replace(/[\u0000-\u001f\u007f\\]/g, "");
  if (!cleaned.startsWith("/") || cleaned.startsWith("//")) return "/";
  try {
    const url = new URL(cleaned, SITE);
    if (url.origin !== SITE || url.pathname.startsWith("//")) return "/";
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return "/";
  }
}
