/**
 * Who may play on the environment server, decided on parsed values (issue 38, findings 1 and 2): a page whose origin
 * merely starts with "127." is not loopback; a Host header that does not name the server (DNS rebinding) is refused;
 * a reset that names LLM endpoints, and so this host's key variables, needs a write token even on loopback; and the
 * server's own port is never an endpoint a reset may name.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { createToken } from "../../server/services/tokens";
import { isLoopbackHost } from "../../trainer/env-server/access";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { openRaw, startTestEnvServer, type TestEnvServer } from "./helpers/env-server";

let db: TestDatabase;
let srv: TestEnvServer;
before(async () => {
  db = await createTestDatabase("rl_envaccess");
  srv = await startTestEnvServer({ db });
});
after(async () => {
  await srv?.close();
  await db?.drop();
});

/** A raw HTTP request (fetch may not set Host); resolves with the status (101 for an accepted WebSocket) and body. */
function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; upgrade?: boolean } = {},
): Promise<{ status: number; body: string }> {
  const ws = opts.upgrade
    ? { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==" }
    : {};
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: opts.method ?? "GET",
      headers: { ...ws, ...(opts.body ? { "Content-Type": "application/json" } : {}), ...opts.headers },
    });
    req.on("upgrade", (_res, socket) => {
      socket.destroy();
      resolve({ status: 101, body: "" });
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

test("loopback is an IP literal in 127.0.0.0/8, ::1 or localhost, never a name that starts with 127.", () => {
  for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST", "::ffff:127.0.0.1"])
    assert.ok(isLoopbackHost(host), host);
  for (const host of ["127.evil.example", "127.0.0.1.evil.example", "localhost.evil.example", "128.0.0.1", "0.0.0.0", "10.0.0.1"])
    assert.equal(isLoopbackHost(host), false, host);
});

test("a page on a name that starts with 127. is cross-site: its WebSocket and its REST calls are refused without a token", async () => {
  const ws = `${srv.url}/envs/guess-number/ws`;
  for (const origin of ["http://127.evil.example", "http://127.0.0.1.evil.example:3000", "https://localhost.evil.example"]) {
    const shake = await request(ws, { upgrade: true, headers: { Origin: origin } });
    assert.equal(shake.status, 403, `${origin}: ${shake.body}`);
    assert.match(JSON.parse(shake.body).detail, /web pages on/);
    const reset = await request(`${srv.url}/envs/guess-number/reset`, { method: "POST", body: "{}", headers: { Origin: origin } });
    assert.equal(reset.status, 403, origin);
  }
  for (const origin of ["http://127.0.0.1:3000", "http://localhost:3000", "http://[::1]:3000", "http://127.0.0.2"])
    assert.equal((await request(ws, { upgrade: true, headers: { Origin: origin } })).status, 101, origin);
});

test("a Host header that does not name the server (DNS rebinding) is refused on every endpoint, with the setting to change", async () => {
  const port = new URL(srv.url).port;
  const rebound = { Host: `rebind.evil.example:${port}` };
  const shake = await request(`${srv.url}/envs/guess-number/ws`, { upgrade: true, headers: rebound });
  assert.equal(shake.status, 403);
  assert.match(JSON.parse(shake.body).detail, /does not answer to the host name "rebind\.evil\.example:\d+".*ROLLOUT_LAB_ALLOWED_HOSTS/);
  const reset = await request(`${srv.url}/envs/guess-number/reset`, { method: "POST", body: "{}", headers: rebound });
  assert.equal(reset.status, 403);
  assert.equal((await request(`${srv.url}/envs/guess-number/state`, { headers: rebound })).status, 403);
  assert.equal((await request(`${srv.url}/health`, { headers: rebound })).status, 403);
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`])
    assert.equal(
      (await request(`${srv.url}/envs/guess-number/reset`, { method: "POST", body: "{}", headers: { Host: host } })).status,
      200,
      host,
    );
});

/** A loopback "LLM" that records the Authorization headers it is sent. */
async function keyCatcher(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers.authorization ?? "");
    res.writeHead(500).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v1`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

test("a reset naming LLM endpoints (and so the host's key variables) needs a write token, even on loopback", async () => {
  process.env.ENVSERVER38_TEST_API_KEY = "sk-host-secret-not-for-pages";
  const catcher = await keyCatcher();
  try {
    const llm = { judge: { baseUrl: catcher.url, model: "judge", apiKeyEnv: "ENVSERVER38_TEST_API_KEY" } };
    const data = { task_id: "guess-3", llm };
    const ingest = (await createToken(db.prisma, { name: "cluster", scopes: ["ingest"] })).token;
    const writer = (await createToken(db.prisma, { name: "operator", scopes: ["write"] })).token;

    const anonymous = await request(`${srv.url}/envs/guess-number/reset`, { method: "POST", body: JSON.stringify(data) });
    assert.equal(anonymous.status, 403, anonymous.body);
    assert.match(JSON.parse(anonymous.body).detail, /llm\.judge: No API token was sent.*"write" scope/);
    const ingestOnly = await request(`${srv.url}/envs/guess-number/reset`, {
      method: "POST",
      body: JSON.stringify(data),
      headers: { Authorization: `Bearer ${ingest}` },
    });
    assert.equal(ingestOnly.status, 403);
    assert.match(JSON.parse(ingestOnly.body).detail, /lacks the "write" scope/);

    const peer = await openRaw(`${srv.url}/envs/guess-number/ws`);
    const viaWs = await peer.request({ type: "reset", data });
    assert.equal(viaWs.type, "error");
    assert.equal(viaWs.data.status, 403);
    peer.ws.close();
    assert.deepEqual(catcher.seen, [], "the host's key was sent nowhere");

    const allowed = await request(`${srv.url}/envs/guess-number/reset`, {
      method: "POST",
      body: JSON.stringify(data),
      headers: { Authorization: `Bearer ${writer}` },
    });
    assert.equal(allowed.status, 200, allowed.body);
  } finally {
    delete process.env.ENVSERVER38_TEST_API_KEY;
    await catcher.close();
  }
});

test("the server's own port is one of Rollout Lab's own listeners: a reset may not name it as an LLM endpoint", async () => {
  const writer = (await createToken(db.prisma, { name: "operator-2", scopes: ["write"] })).token;
  const llm = { judge: { baseUrl: `${srv.url}/v1`, model: "judge" } };
  const res = await request(`${srv.url}/envs/guess-number/reset`, {
    method: "POST",
    body: JSON.stringify({ task_id: "guess-3", llm }),
    headers: { Authorization: `Bearer ${writer}` },
  });
  assert.equal(res.status, 422, res.body);
  assert.match(JSON.parse(res.body).detail, /llm\.judge\.baseUrl: .*Rollout Lab's own listeners/);
});
