/**
 * Signing in to the dashboard (POST /api/login from the login form, which works without JavaScript). Guessing is
 * rate-limited per client and in total (about 12 guesses per second were possible with a fixed delay alone):
 * the per-client key comes from X-Forwarded-For, which a client can forge, so the global bucket is what actually
 * bounds an attacker; a fixed delay on every wrong password remains. The cookie's Secure flag comes from
 * configuration (ROLLOUT_LAB_COOKIE_SECURE, else the scheme of ROLLOUT_LAB_PUBLIC_URL), never from a request header.
 */
import { TokenBucketLimiter } from "./rate-limit";
import {
  SESSION_COOKIE,
  SESSION_MAX_AGE_SECONDS,
  checkPassword,
  createSessionValue,
  dashboardPassword,
  safeNextPath,
} from "./dashboard-session";

export const LOGIN_PATH = "/api/login";
const perClient = new TokenBucketLimiter({ perMinute: 6, burst: 5 });
const overall = new TokenBucketLimiter({ perMinute: 60, burst: 20 });
const WRONG_PASSWORD_DELAY_MS = 750;

export function cookieSecure(env: Record<string, string | undefined> = process.env): boolean {
  const explicit = env.ROLLOUT_LAB_COOKIE_SECURE;
  if (explicit !== undefined && explicit !== "") return /^(1|true|yes|on)$/i.test(explicit);
  return (env.ROLLOUT_LAB_PUBLIC_URL ?? "").startsWith("https://");
}

const redirect = (location: string, extra: Record<string, string> = {}) =>
  new Response(null, { status: 303, headers: { location, "cache-control": "no-store", ...extra } });

export async function handleLogin(req: Request): Promise<Response> {
  const form = await req.formData().catch(() => null);
  const next = safeNextPath(String(form?.get("next") ?? ""));
  const password = dashboardPassword();
  if (!password) return redirect(next);

  const client = (req.headers.get("x-forwarded-for") ?? "").split(",")[0].trim() || "unknown";
  for (const decision of [perClient.take(client), overall.take("all")]) {
    if (!decision.ok) {
      return new Response(`Too many sign-in attempts; wait ${decision.retryAfterSeconds} s and try again.`, {
        status: 429,
        headers: { "retry-after": String(decision.retryAfterSeconds), "content-type": "text/plain; charset=utf-8" },
      });
    }
  }
  if (!(await checkPassword(String(form?.get("password") ?? ""), password))) {
    await new Promise((r) => setTimeout(r, WRONG_PASSWORD_DELAY_MS));
    return redirect(`/settings/login?error=1&next=${encodeURIComponent(next)}`);
  }
  const cookie = [
    `${SESSION_COOKIE}=${await createSessionValue(password)}`,
    "Path=/",
    `Max-Age=${SESSION_MAX_AGE_SECONDS}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(cookieSecure() ? ["Secure"] : []),
  ].join("; ");
  return redirect(next, { "set-cookie": cookie });
}
