/**
 * Signing in to the dashboard (POST /api/login from the login form, which works without JavaScript). Guessing is
 * throttled per client address and in total (login-throttle.ts): an attempt over the limit waits for its turn instead
 * of being refused, so a slow stream of wrong guesses never keeps the owner out, only failures count, and an address
 * with no recent failure is checked before the overall schedule (a flood from many addresses does not lock the owner
 * out). A fixed delay on every wrong password remains. The cookie's Secure flag comes from configuration
 * (ROLLOUT_LAB_COOKIE_SECURE, else the scheme of ROLLOUT_LAB_PUBLIC_URL), never from a request header.
 */
import { assertValidFormEncoding, readBodyText } from "../http/input-safety";
import { AppError } from "../errors";
import { clientAddress } from "../http/client-address";
import { clientKey } from "../../lib/trusted-proxies";
import { LoginThrottle } from "./login-throttle";
import {
  SESSION_COOKIE,
  SESSION_MAX_AGE_SECONDS,
  checkPassword,
  createSessionValue,
  dashboardPassword,
  safeNextPath,
} from "./dashboard-session";

export const LOGIN_PATH = "/api/login";
const throttle = new LoginThrottle({ perClient: { perMinute: 6, burst: 5 }, overall: { perMinute: 60, burst: 20 }, maxWaitMs: 30_000 });
const WRONG_PASSWORD_DELAY_MS = 750;
/** A password and a path: a sign-in form is a few hundred bytes. */
const MAX_LOGIN_BODY_BYTES = 16 * 1024;
/** Throttling is logged once per client and minute, so a guesser cannot flood the log either. */
const LOG_EVERY_MS = 60_000;
const lastLogged = new Map<string, number>();

function logThrottling(client: string, message: string): void {
  const t = Date.now();
  if (t - (lastLogged.get(client) ?? 0) < LOG_EVERY_MS) return;
  if (lastLogged.size > 10_000) lastLogged.clear();
  lastLogged.set(client, t);
  console.warn(`[login] ${message}`);
}

export function cookieSecure(env: Record<string, string | undefined> = process.env): boolean {
  const explicit = env.ROLLOUT_LAB_COOKIE_SECURE;
  if (explicit !== undefined && explicit !== "") return /^(1|true|yes|on)$/i.test(explicit);
  return (env.ROLLOUT_LAB_PUBLIC_URL ?? "").startsWith("https://");
}

const redirect = (location: string, extra: Record<string, string> = {}) =>
  new Response(null, { status: 303, headers: { location, "cache-control": "no-store", ...extra } });

/** The form, or the refusal to answer with (too large, not UTF-8, a %-escape that is not UTF-8). */
async function readForm(req: Request): Promise<URLSearchParams | FormData | Response> {
  try {
    const text = await readBodyText(req, MAX_LOGIN_BODY_BYTES);
    const type = req.headers.get("content-type") ?? "";
    if (type.startsWith("multipart/form-data")) return await new Response(text, { headers: { "content-type": type } }).formData();
    // URLSearchParams reads an escape that is not UTF-8 ("%FF") as U+FFFD: a password would silently change.
    assertValidFormEncoding(text);
    return new URLSearchParams(text);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return error.code === "PAYLOAD_TOO_LARGE"
      ? new Response("The sign-in form is larger than a sign-in form can be.", { status: 413 })
      : new Response(`The sign-in form could not be read: ${error.message}`, {
          status: 400,
          headers: { "content-type": "text/plain; charset=utf-8" },
        });
  }
}

const tooMany = (seconds: number) =>
  new Response(`Too many sign-in attempts; wait ${seconds} s and try again.`, {
    status: 429,
    headers: { "retry-after": String(seconds), "content-type": "text/plain; charset=utf-8" },
  });

export async function handleLogin(req: Request): Promise<Response> {
  const form = await readForm(req);
  if (form instanceof Response) return form;
  const next = safeNextPath(String(form.get("next") ?? ""));
  const password = dashboardPassword();
  if (!password) return redirect(next);

  // The socket's peer, or behind a configured proxy the right-most hop it does not vouch for: never a value the
  // client wrote itself, so rotating X-Forwarded-For does not make one guesser many.
  const client = clientKey(clientAddress(req.headers));
  const admission = throttle.admit(client);
  if (!admission.ok) {
    logThrottling(client, `refusing sign-in attempts from ${client} for ${admission.retryAfterSeconds} s: too many failed attempts.`);
    return tooMany(admission.retryAfterSeconds);
  }
  if (admission.waitMs > 0) {
    logThrottling(
      client,
      `throttling sign-in attempts from ${client}: after repeated failures each attempt waits (now ${Math.ceil(admission.waitMs / 1000)} s).`,
    );
    await new Promise((r) => setTimeout(r, admission.waitMs));
  }
  const correct = await checkPassword(String(form.get("password") ?? ""), password);
  admission.settle(correct);
  if (!correct) {
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
