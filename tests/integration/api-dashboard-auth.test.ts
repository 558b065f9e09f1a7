/**
 * DASHBOARD_PASSWORD over real HTTP: pages redirect to the login page, the tRPC endpoint answers 401, the REST API
 * and health stay reachable; signing in through the login form (a plain POST, as a browser without JS sends it)
 * sets an HttpOnly cookie that opens the dashboard; a wrong password does not; guessing is rate-limited, and a flood
 * of guesses (forged X-Forwarded-For, or many real addresses behind the proxy) does not lock the owner out.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { startApiServer, type ApiServer } from "./api-harness";

let server: ApiServer;
before(async () => {
  // 127.0.0.1 plays the reverse proxy (its X-Forwarded-For is believed); 127.0.0.2 and .3, also this machine, are
  // clients connecting directly, whose X-Forwarded-For must not be.
  server = await startApiServer({ DASHBOARD_PASSWORD: "correct horse", ROLLOUT_LAB_TRUSTED_PROXIES: "127.0.0.1" });
});
after(async () => server?.stop());

/** Submits the login form the way a browser does without JavaScript: to the form's action, with its hidden fields. */
async function submitLogin(password: string, client = "203.0.113.1"): Promise<Response> {
  const page = await (await fetch(`${server.base}/settings/login?next=%2Fruns`)).text();
  const action = /<form[^>]*action="([^"]*)"/.exec(page)?.[1];
  assert.equal(action, "/api/login");
  const form = new URLSearchParams();
  for (const m of page.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
    const name = /name="([^"]*)"/.exec(m[0])?.[1];
    const value = /value="([^"]*)"/.exec(m[0])?.[1] ?? "";
    if (name) form.append(name.replace(/&amp;/g, "&"), value.replace(/&amp;/g, "&").replace(/&quot;/g, '"'));
  }
  form.append("password", password);
  return fetch(`${server.base}${action}`, {
    method: "POST",
    body: form,
    redirect: "manual",
    headers: { origin: server.base, "x-forwarded-for": client },
  });
}

test("without the cookie: pages redirect to login, tRPC is 401, REST and health are unaffected", async () => {
  const page = await fetch(`${server.base}/runs`, { redirect: "manual" });
  assert.ok([302, 303, 307].includes(page.status), String(page.status));
  assert.match(page.headers.get("location") ?? "", /\/settings\/login\?next=%2Fruns/);
  const trpc = await fetch(`${server.base}/api/trpc/runs.list`);
  assert.equal(trpc.status, 401);
  assert.equal((await fetch(`${server.base}/api/health`)).status, 200);
  assert.equal((await fetch(`${server.base}/api/v1/openapi.json`)).status, 200);
  const token = await server.token(["read"]);
  assert.equal((await fetch(`${server.base}/api/v1/runs`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
  assert.equal((await fetch(`${server.base}/settings/login`)).status, 200);
});

test("the right password sets an HttpOnly session cookie that opens pages and tRPC; a wrong one does not", async () => {
  const wrong = await submitLogin("wrong");
  assert.ok(!(wrong.headers.get("set-cookie") ?? "").includes("rl_session="), "no cookie for a wrong password");

  const ok = await submitLogin("correct horse");
  const setCookie = ok.headers.get("set-cookie") ?? "";
  assert.match(setCookie, /rl_session=\d+\.[0-9a-f]{64}/, `status ${ok.status}, set-cookie: ${setCookie}`);
  assert.match(setCookie, /HttpOnly/i);
  assert.ok(!setCookie.includes("correct horse"), "the password is not in the cookie");
  const cookie = /rl_session=[^;]+/.exec(setCookie)![0];

  const page = await fetch(`${server.base}/runs`, { headers: { cookie }, redirect: "manual" });
  assert.equal(page.status, 200);
  const trpc = await fetch(`${server.base}/api/trpc/runs.list?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, {
    headers: { cookie },
  });
  assert.equal(trpc.status, 200);
  const forged = await fetch(`${server.base}/api/trpc/runs.list`, {
    headers: { cookie: cookie.replace(/.$/, (c) => (c === "0" ? "1" : "0")) },
  });
  assert.equal(forged.status, 401);
});

test("after a burst of wrong guesses the right password still signs in (it waits its turn); the Secure flag is not taken from request headers", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await submitLogin("guess", "198.51.100.7")).status);
  assert.deepEqual(statuses, [303, 303, 303, 303, 303], "five guesses are answered");
  const started = Date.now();
  const owner = await submitLogin("correct horse", "198.51.100.7");
  assert.equal(owner.status, 303, "the owner is not locked out by someone else's guesses");
  assert.match(owner.headers.get("set-cookie") ?? "", /rl_session=/);
  assert.ok(Date.now() - started >= 5_000, "but over the limit an attempt waits its turn");
  assert.match(server.output(), /\[login\] throttling sign-in attempts from 198\.51\.100\.7/, "throttling is logged");

  const form = new URLSearchParams({ password: "correct horse", next: "/runs" });
  const viaProxy = await fetch(`${server.base}/api/login`, {
    method: "POST",
    body: form,
    redirect: "manual",
    headers: { "x-forwarded-proto": "https", "x-forwarded-for": "192.0.2.9" },
  });
  assert.equal(viaProxy.status, 303);
  assert.doesNotMatch(viaProxy.headers.get("set-cookie") ?? "", /Secure/i, "a client header does not decide the cookie's flags");
});

test("after signing in, next= never leads off the site, however it is spelled", async () => {
  const login = (next: string) =>
    fetch(`${server.base}/api/login`, {
      method: "POST",
      body: new URLSearchParams({ password: "correct horse", next }),
      redirect: "manual",
      headers: { "x-forwarded-for": "192.0.2.44" },
    });
  for (const next of ["/\t/127.0.0.1:3932/pwned", "/\\/127.0.0.1:3932/pwned", "//127.0.0.1:3932/pwned", "/\n/x", "https://evil.example/"]) {
    const res = await login(next);
    assert.equal(res.status, 303, JSON.stringify(next));
    // Resolved as a browser resolves a Location header (tabs and newlines dropped, "\\" read as "/").
    const target = new URL(res.headers.get("location") ?? "", server.base);
    assert.equal(target.origin, server.base, `${JSON.stringify(next)} led to ${target.href}`);
  }
  assert.equal(new URL((await login("/runs?tag=x")).headers.get("location")!, server.base).pathname, "/runs");

  const page = await (await fetch(`${server.base}/settings/login?next=%2F%09%2F127.0.0.1%3A3932%2Fpwned`)).text();
  const hidden = /<input[^>]*name="next"[^>]*value="([^"]*)"/.exec(page)?.[1];
  assert.equal(hidden, "/", "the form does not carry the foreign target either");
});

/** A sign-in POST from a chosen local address (127.0.0.0/8 is all this machine), as a script would send it. */
function postLogin(password: string, from: string, forwardedFor?: string): Promise<{ status: number; setCookie: string }> {
  const url = new URL(server.base);
  const body = new URLSearchParams({ password, next: "/runs" }).toString();
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", "content-length": String(body.length) };
  if (forwardedFor) headers["x-forwarded-for"] = forwardedFor;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method: "POST", path: "/api/login", headers, localAddress: from, agent: false },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, setCookie: String(res.headers["set-cookie"] ?? "") }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The owner signs in while `flood` is under way: answered with a cookie, and without waiting out anyone's schedule. */
async function ownerGetsIn(from: string, forwardedFor?: string): Promise<void> {
  const started = Date.now();
  const owner = await postLogin("correct horse", from, forwardedFor);
  assert.equal(owner.status, 303, "the owner is not refused");
  assert.match(owner.setCookie, /rl_session=/);
  // Without the owner's priority the answer is a 429, or a place in the overall schedule of up to 30 s (maxWaitMs).
  // The bound leaves room for a server busy answering the flood on a loaded 2-core machine (9.7 s seen at load 10).
  assert.ok(Date.now() - started < 15_000, `the owner waited ${Date.now() - started} ms`);
}

test("a flood with rotating X-Forwarded-For from one address is one client: it is throttled, the owner gets in", async () => {
  // Not from the trusted proxy: each forged address would otherwise be a client of its own and fill the overall schedule.
  const flood = Array.from({ length: 40 }, (_, i) => postLogin("guess", "127.0.0.2", `198.18.${i >> 8}.${i & 255}`));
  await new Promise((r) => setTimeout(r, 1500));
  await ownerGetsIn("127.0.0.3", "198.18.200.1");
  const statuses = (await Promise.all(flood)).map((r) => r.status);
  assert.ok(statuses.filter((s) => s === 429).length >= 30, `the flood is throttled as one client: ${statuses.join(",")}`);
});

test("many real addresses behind the proxy fill the overall schedule; the owner's correct password is checked before it", async () => {
  // Each address guesses three times (a forged entry left of it changes nothing: the proxy appended the real one).
  const guess = (i: number) => postLogin("guess", "127.0.0.1", `6.6.6.${i % 250}, 203.0.113.${i % 120}`);
  const first = await Promise.all(Array.from({ length: 120 }, (_, i) => guess(i)));
  assert.ok(
    first.every((r) => r.status === 303),
    "an address's first guess is answered",
  );
  const flood = Array.from({ length: 240 }, (_, i) => guess(i));
  await new Promise((r) => setTimeout(r, 1500));
  await ownerGetsIn("127.0.0.1", "6.6.6.6, 198.51.100.250");
  const statuses = (await Promise.all(flood)).map((r) => r.status);
  assert.ok(statuses.filter((s) => s === 429).length >= 150, "addresses that failed wait in the overall schedule and are refused past it");
});
