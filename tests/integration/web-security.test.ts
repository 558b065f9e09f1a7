/**
 * The dashboard API tried as an attacker and a careless client would, over real HTTP against the built app:
 * DNS rebinding (a foreign Host), cross-site writes (Origin / Sec-Fetch-Site), tRPC input that used to be a 500
 * (NUL, lone surrogates, deep nesting, a null body), oversized bodies and batches, and idempotent creates.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { api, startApiServer, type ApiServer } from "./api-harness";

let server: ApiServer;
before(async () => {
  server = await startApiServer();
});
after(async () => server?.stop());

/** node:http, because fetch does not let a test choose the Host header. */
function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  const url = new URL(server.base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let data = "";
      res.on("data", (d) => (data += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on("error", reject);
    if (body) req.write(body);
    req.end();
  });
}

const trpcUrl = (proc: string, input: unknown) => `/api/trpc/${proc}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
const createBody = (config: unknown) => JSON.stringify({ json: { config } });

test("a foreign Host name (DNS rebinding) is refused on pages and APIs; the real names work", async () => {
  for (const path of ["/runs", trpcUrl("runs.list", {}), "/api/v1/openapi.json"]) {
    const evil = await rawRequest("GET", path, { host: "attacker.example:3000" });
    assert.equal(evil.status, 403, path);
    assert.match(evil.body, /does not answer to the host name .{0,2}attacker\.example:3000.*ROLLOUT_LAB_ALLOWED_HOSTS/);
  }
  const port = new URL(server.base).port;
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`])
    assert.equal((await rawRequest("GET", trpcUrl("runs.list", {}), { host })).status, 200, host);
  assert.equal((await rawRequest("GET", "/api/health", { host: "10.1.2.3" })).status, 200, "health answers a probe by IP");
});

test("writes from another origin are refused (CSRF); the dashboard's own origin and scripts without Origin are not", async () => {
  const headers = { "content-type": "application/json" };
  const evil = await fetch(`${server.base}/api/trpc/runActions.create`, {
    method: "POST",
    headers: { ...headers, origin: "https://attacker.example" },
    body: createBody({ name: "csrf" }),
  });
  assert.equal(evil.status, 403);
  const sneaky = await fetch(`${server.base}/api/trpc/runActions.create`, {
    method: "POST",
    headers: { ...headers, "sec-fetch-site": "cross-site" },
    body: createBody({ name: "csrf" }),
  });
  assert.equal(sneaky.status, 403);
  const nullOrigin = await fetch(`${server.base}/api/trpc/tokens.create`, {
    method: "POST",
    headers: { ...headers, origin: "null" },
    body: JSON.stringify({ json: { name: "x", scopes: ["write"] } }),
  });
  assert.equal(nullOrigin.status, 403);
  assert.equal(await server.db.prisma.run.count({ where: { name: "csrf" } }), 0);
  assert.equal(await server.db.prisma.apiToken.count(), 0);

  const own = await fetch(`${server.base}/api/trpc/runActions.create`, {
    method: "POST",
    headers: { ...headers, origin: server.base },
    body: createBody({ name: "same origin" }),
  });
  assert.equal(own.status, 200, await own.text());
  const script = await fetch(`${server.base}/api/trpc/runActions.create`, {
    method: "POST",
    headers,
    body: createBody({ name: "script" }),
  });
  assert.equal(script.status, 200);
  // Reads are not writes: a cross-origin GET cannot read the answer anyway (no CORS), and is not refused.
  assert.equal((await fetch(`${server.base}${trpcUrl("runs.list", {})}`, { headers: { origin: "https://attacker.example" } })).status, 200);
});

test("tRPC input that used to be a 500 is a 400 that says what is wrong", async () => {
  const post = (proc: string, body: string, extra: Record<string, string> = {}) =>
    fetch(`${server.base}/api/trpc/${proc}`, { method: "POST", headers: { "content-type": "application/json", ...extra }, body });
  const message = async (res: Response) => ((await res.json()) as { error: { json: { message: string } } }).error.json.message;

  const nul = await post("runActions.create", createBody({ name: "a\u0000b" }));
  assert.equal(nul.status, 400);
  assert.match(await message(nul), /json\.config\.name contains a NUL character/);
  const surrogate = await post("runActions.create", createBody({ name: "a\ud800b" }));
  assert.equal(surrogate.status, 400);
  assert.match(await message(surrogate), /unpaired UTF-16 surrogate/);
  const deep = await post("runActions.create", `{"json":{"config":{"tags":[${'{"a":'.repeat(5000)}1${"}".repeat(5000)}]}}}`);
  assert.equal(deep.status, 400);
  assert.match(await message(deep), /nested more than 32 levels/);
  const nullBody = await post("runActions.create", "null");
  assert.equal(nullBody.status, 400);
  assert.match(await message(nullBody), /must be an object \{"json": <input>\}/);
  const query = await fetch(`${server.base}${trpcUrl("runs.get", { id: "x\u0000" })}`);
  assert.equal(query.status, 400);

  // An oversized body (413) is checked in the tests below: answered before the body ends, and read by a client that
  // sends it whole.

  const batch = await fetch(`${server.base}/api/trpc/${Array(51).fill("runs.facets").join(",")}?batch=1&input=${encodeURIComponent("{}")}`);
  assert.equal(batch.status, 400);
  assert.match(JSON.stringify(await batch.json()), /at most 50 calls; this one has 51/);

  const zod = await fetch(`${server.base}${trpcUrl("runs.list", { limit: "many" })}`);
  assert.equal(zod.status, 400);
  const text = await message(zod);
  assert.match(text, /^Invalid input: limit: /);
  assert.doesNotMatch(text, /"code":|\[\s*\{/, "no raw zod JSON");
});

test("Idempotency-Key: a retried create returns the first run; the same key with another body is 422", async () => {
  const token = await server.token(["write"]);
  const create = (name: string, key: string) => api(server.base, token, "POST", "/runs", { config: { name } }, { "idempotency-key": key });
  const first = await create("idem once", "key-1");
  assert.equal(first.status, 201);
  const again = await create("idem once", "key-1");
  assert.equal(again.status, 201);
  assert.equal(again.json.id, first.json.id);
  assert.equal(again.headers.get("idempotent-replayed"), "true");
  const racing = await Promise.all(Array.from({ length: 5 }, () => create("idem race", "key-2")));
  assert.equal(new Set(racing.map((r) => r.json.id)).size, 1, "concurrent retries create one run");
  assert.equal(await server.db.prisma.run.count({ where: { name: { startsWith: "idem" } } }), 2);

  const reused = await create("something else", "key-1");
  assert.equal(reused.status, 422);
  assert.equal(reused.json.error?.field, "Idempotency-Key");
  assert.match(reused.json.error?.message ?? "", /already used for a different request/);
  const other = await api(
    server.base,
    await server.token(["write"]),
    "POST",
    "/runs",
    { config: { name: "idem once" } },
    { "idempotency-key": "key-1" },
  );
  assert.equal(other.status, 201);
  assert.notEqual(other.json.id, first.json.id, "keys belong to one token");
  // The same body with its keys in another order is the same request: a replay, not a 422.
  const body = (order: string[]) => `{"config":{${order.map((k) => (k === "name" ? '"name":"idem order"' : '"tags":["a"]')).join(",")}}}`;
  const ordered = await api(server.base, token, "POST", "/runs", body(["name", "tags"]), { "idempotency-key": "key-3" });
  const reordered = await api(server.base, token, "POST", "/runs", body(["tags", "name"]), { "idempotency-key": "key-3" });
  assert.equal(reordered.status, 201, reordered.text);
  assert.equal(reordered.json.id, ordered.json.id);
  const bad = await create("idem", "has space");
  assert.equal(bad.status, 400);
  const doc = (await api(server.base, null, "GET", "/openapi.json")).json as {
    paths: Record<string, Record<string, { parameters: { name: string }[] }>>;
  };
  assert.ok(doc.paths["/runs"].post.parameters.some((p) => p.name === "Idempotency-Key"));
});

test("TRACE and other methods no route serves are a 405 naming the ones that are", async () => {
  for (const path of ["/api/v1/runs", "/api/trpc/runs.list", "/runs"]) {
    const res = await rawRequest("TRACE", path, { host: new URL(server.base).host });
    assert.equal(res.status, 405, `${path}: ${res.body.slice(0, 200)}`);
    assert.match(res.body, /TRACE is not supported here; use GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS/);
  }
});

/** Sends headers (and `sent` of the body) but never ends the request: the answer must not wait for the rest. */
function answerBeforeBodyEnds(path: string, headers: Record<string, string>, sent: Buffer): Promise<{ status: number; body: string }> {
  const url = new URL(server.base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method: "POST", path, headers }, (res) => {
      let data = "";
      res.on("data", (d) => (data += d));
      res.on("end", () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: data });
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within 15 s to ${path}: the server waited for the whole body`));
    }, 15_000);
    req.on("close", () => clearTimeout(timer));
    req.on("error", () => {}); // the server may close the connection after answering
    req.write(sent);
  });
}

test("an oversized body is refused from its Content-Length before it is read; a chunked API body is refused outright", async () => {
  const json = { "content-type": "application/json", origin: server.base };
  const trpc = await answerBeforeBodyEnds(
    "/api/trpc/runActions.create",
    { ...json, "content-length": String(50_000_000) },
    Buffer.from('{"json":'),
  );
  assert.equal(trpc.status, 413);
  assert.match(JSON.parse(trpc.body).error.json.message, /larger than the 1,048,576 bytes/);

  const rest = await answerBeforeBodyEnds("/api/v1/runs", { ...json, "content-length": String(20_000_000) }, Buffer.from("{"));
  assert.equal(rest.status, 413);
  assert.equal(JSON.parse(rest.body).error.code, "PAYLOAD_TOO_LARGE");

  const chunked = await answerBeforeBodyEnds("/api/v1/runs", { ...json, "transfer-encoding": "chunked" }, Buffer.alloc(64 * 1024, " "));
  assert.equal(chunked.status, 411);
  assert.match(JSON.parse(chunked.body).error.message, /Content-Length/);
});

test("a client that sends an oversized body whole reads the 413, not a reset connection", async () => {
  // fetch writes all of its body before it reads the answer: cutting the connection at once made the kernel reset it
  // under the unread bytes, and the client saw ECONNRESET (the API fuzz test's 3 MB config, on a loaded machine).
  const body = JSON.stringify({ config: { name: "a".repeat(11 * 1024 * 1024) } });
  const answers = await Promise.all(
    Array.from({ length: 4 }, () =>
      fetch(`${server.base}/api/v1/runs`, { method: "POST", headers: { "content-type": "application/json" }, body }).then(
        async (res) => ({ status: res.status, text: await res.text() }),
        (error: Error) => ({ status: 0, text: `${error.message}: ${String((error.cause as Error | undefined)?.message)}` }),
      ),
    ),
  );
  for (const answer of answers) {
    assert.equal(answer.status, 413, answer.text);
    assert.match(answer.text, /larger than the 1,048,576 bytes/);
  }
});

test("a page path takes no request body: refused before it is read, so an unauthenticated POST holds no memory", async () => {
  const headers = { "content-type": "application/x-www-form-urlencoded", origin: server.base };
  for (const path of ["/runs", "/settings/login", "/", "/%61pi/v1/runs"]) {
    const res = await answerBeforeBodyEnds(path, { ...headers, "content-length": String(40_000_000) }, Buffer.from("a=1&"));
    assert.equal(res.status, 413, `${path}: ${res.body.slice(0, 200)}`);
    assert.match(res.body, /takes no request body/);
  }
  const chunked = await answerBeforeBodyEnds("/runs", { ...headers, "transfer-encoding": "chunked" }, Buffer.alloc(64 * 1024, "a"));
  assert.equal(chunked.status, 413);
  assert.equal((await fetch(`${server.base}/runs`, { method: "POST" })).status !== 413, true, "a bodiless POST is not a body");
});

test("the API's body limits hold however its path is spelled (/./api/…, /_next/../api/…)", async () => {
  const json = { "content-type": "application/json", origin: server.base };
  for (const path of ["/./api/v1/runs", "/_next/../api/v1/runs", "/_next/%2e%2e/api/trpc/runActions.create", "/api/v1/./runs"]) {
    const res = await answerBeforeBodyEnds(path, { ...json, "content-length": String(20_000_000) }, Buffer.from("{"));
    assert.equal(res.status, 413, `${path}: ${res.body.slice(0, 200)}`);
    assert.match(res.body, /larger than the 1,048,576 bytes/);
  }
});

test("an endpoint a run may not reach is a 400 naming the field and what to set, even where loopback is allowed", async () => {
  // This server runs with the test harness's ROLLOUT_LAB_LLM_BASE_URLS=http://127.0.0.1: (the fake LLM servers).
  const token = await server.token(["write"]);
  const res = await api(server.base, token, "POST", "/runs", {
    config: {
      llm: {
        judge: { baseUrl: `${server.base}/api/`, model: "m", apiKeyEnv: "OPENAI_API_KEY" },
        userSimulator: { baseUrl: "gopher://127.0.0.1:6379/_INFO", model: "m" },
      },
    },
  });
  assert.equal(res.status, 400, res.text);
  const issues = res.json.error?.issues ?? [];
  assert.deepEqual(
    issues.map((i) => i.path),
    ["config.llm.userSimulator.baseUrl", "config.llm.judge.baseUrl"],
  );
  assert.match(issues[0].message, /gopher: URLs are not LLM endpoints/);
  assert.match(issues[1].message, new RegExp(`one of Rollout Lab's own listeners \\(port ${new URL(server.base).port}`));
});

test("a number larger than its int4 column is a 400 naming the field, on the batch and trajectories routes and tRPC", async () => {
  const token = await server.token(["write"]);
  const created = await api(server.base, token, "POST", "/external-runs", { name: "int4", source: "other" });
  assert.equal(created.status, 201, created.text);
  const runId = created.json.id as string;
  const sample = (extra: Record<string, unknown>, call: Record<string, unknown> = {}) => ({
    id: `s-${JSON.stringify(extra)}-${JSON.stringify(call)}`,
    step: 0,
    conversation: [{ role: "user", content: "hi" }],
    reward: 1,
    llmCalls: [{ role: "judge", model: "m", messages: [], response: "ok", ...call }],
    ...extra,
  });
  const cases: [Record<string, unknown>, string][] = [
    [sample({ promptTokens: 2 ** 31 }), "trajectories.0.promptTokens"],
    [sample({ responseTokens: 2 ** 31 }), "trajectories.0.responseTokens"],
    [sample({}, { turn: 2 ** 31 }), "trajectories.0.llmCalls.0.turn"],
  ];
  for (const [trajectory, field] of cases) {
    for (const route of ["batch", "trajectories"]) {
      const res = await api(server.base, token, "POST", `/external-runs/${runId}/${route}`, { trajectories: [trajectory] });
      assert.equal(res.status, 400, `${route} ${field}: ${res.text.slice(0, 300)}`);
      assert.deepEqual(
        (res.json.error?.issues ?? []).map((i) => i.path),
        [field],
      );
      assert.match(res.json.error?.issues?.[0].message ?? "", /2,147,483,647|100000|too big/i);
    }
  }
  const trpc = await fetch(`${server.base}/api/trpc/ingest.appendTrajectories`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ json: { runId, trajectories: [sample({ promptTokens: 2 ** 31 })] } }),
  });
  assert.equal(trpc.status, 400);
  const events = await fetch(`${server.base}${trpcUrl("runs.events", { id: runId, before: 2 ** 31 })}`);
  assert.equal(events.status, 400, "a cursor past int4 is refused, not sent to the database");
  assert.equal(await server.db.prisma.trajectory.count({ where: { runId } }), 0);
  const ok = await api(server.base, token, "POST", `/external-runs/${runId}/batch`, {
    trajectories: [sample({ promptTokens: 2 ** 31 - 1 })],
  });
  assert.equal(ok.status, 200, ok.text.slice(0, 300));
});

test("a body that is not valid UTF-8 is a 400 on REST, tRPC and the sign-in form; nothing is stored with U+FFFD", async () => {
  const token = await server.token(["write"]);
  const bytes = (before: string, after: string) => Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xfe]), Buffer.from(after)]);
  const rest = await fetch(`${server.base}/api/v1/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: bytes('{"config":{"name":"bad', '"}}'),
  });
  assert.equal(rest.status, 400);
  assert.match(((await rest.json()) as { error: { message: string } }).error.message, /not valid UTF-8 \(at byte 22\)/);
  const trpc = await fetch(`${server.base}/api/trpc/runActions.create`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: bytes('{"json":{"config":{"name":"bad', '"}}}'),
  });
  assert.equal(trpc.status, 400);
  assert.match(JSON.stringify(await trpc.json()), /not valid UTF-8/);
  const query = await fetch(`${server.base}/api/v1/runs?tag=%FF`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(query.status, 400);
  assert.match(await query.text(), /query parameter \\"tag\\" is not valid UTF-8/);
  const login = await fetch(`${server.base}/api/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "password=%FF&next=%2Fruns",
    redirect: "manual",
  });
  assert.equal(login.status, 400);
  assert.match(await login.text(), /not valid UTF-8/);
  assert.equal(await server.db.prisma.run.count({ where: { name: { contains: "\ufffd" } } }), 0);
});
