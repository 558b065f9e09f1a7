/**
 * Fuzzing the REST API over real HTTP: hundreds of malformed requests (broken JSON, wrong types, unknown and
 * prototype-polluting fields, out-of-range and non-finite numbers, NUL characters, absurd nesting, huge bodies,
 * odd ids and paths, bad auth headers). The server must answer every one with a 4xx JSON error that names what was
 * wrong — never a 5xx, never a stack trace or file path.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { api, startApiServer, type ApiServer } from "./api-harness";
import { mulberry32 } from "../../lib/seeded-random";

let server: ApiServer;
before(async () => {
  server = await startApiServer({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_MINUTE: "1000000" });
});
after(async () => server?.stop());

const WEIRD_VALUES: unknown[] = [
  null,
  true,
  -1,
  0,
  1.5,
  1e308,
  -1e308,
  "",
  "x".repeat(5000),
  "\u0000",
  "a\u0000b",
  "\ud800",
  "💥",
  "<script>",
  "' OR 1=1 --",
  "%",
  "_",
  [],
  [1, "a", null],
  {},
  { __proto__: { admin: true } },
  { constructor: { prototype: {} } },
  "NaN",
  "Infinity",
  "1e999",
  "-0",
  "0x10",
];
const CONFIG_PATHS = [
  ["name"],
  ["tags"],
  ["seed"],
  ["environment"],
  ["grpo", "steps"],
  ["grpo", "groupSize"],
  ["grpo", "learningRate"],
  ["grpo", "klEstimator"],
  ["rollout", "topP"],
  ["rollout", "maxTurns"],
  ["llm", "judge"],
  ["llm", "judge", "baseUrl"],
  ["llm", "judge", "apiKeyEnv"],
  ["checkpoint"],
  ["curriculum"],
  ["unknownSection"],
  ["grpo", "unknownField"],
  ["__proto__"],
  ["policy", "lora", "rank"],
  ["evaluation", "testFreq"],
];
const QUERY_KEYS = [
  "limit",
  "offset",
  "cursor",
  "status",
  "stepMin",
  "stepMax",
  "rewardMin",
  "rewardMax",
  "sort",
  "dir",
  "text",
  "split",
  "keys",
  "maxPoints",
  "taskId",
  "bogus",
  "id",
  "runId",
];
const QUERY_VALUES = [
  "-1",
  "0",
  "1e999",
  "abc",
  "1.5",
  "",
  "%00",
  "%E0%A4%A",
  "999999999999",
  "asc",
  'DROP TABLE "Run"',
  "ok,nope",
  "reward/mean,,",
  "%25",
  "true",
  "[1,2]",
];
const IDS = ["nope", "%00", "..", "%2e%2e%2f%2e%2e", "a".repeat(300), "%E2%82%AC", "%ZZ", "1", "' OR '1'='1", "null"];

function setPath(obj: Record<string, unknown>, path: string[], value: unknown) {
  let cur = obj;
  for (const key of path.slice(0, -1)) {
    if (typeof cur[key] !== "object" || cur[key] === null) cur[key] = {};
    cur = cur[key] as Record<string, unknown>;
  }
  cur[path[path.length - 1]] = value;
}

function buildRequests(runId: string, trajectoryId: string) {
  const r = mulberry32(20240611);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const out: { method: string; path: string; body?: string; headers?: Record<string, string>; anonymous?: boolean }[] = [];

  for (let i = 0; i < 180; i++) {
    const config: Record<string, unknown> = { name: "fuzz" };
    for (let k = 0; k < 1 + Math.floor(r() * 3); k++) setPath(config, pick(CONFIG_PATHS), pick(WEIRD_VALUES));
    const target = pick(["/runs", `/runs/${runId}/clone`, `/runs/${pick(IDS)}/clone`]);
    const body = target.endsWith("/clone")
      ? { overrides: config, ...(r() < 0.3 ? { extra: 1 } : {}) }
      : { config, ...(r() < 0.2 ? { [pick(["id", "source", "launchedByName", "x"])]: pick(WEIRD_VALUES) } : {}) };
    out.push({ method: "POST", path: target, body: JSON.stringify(body) });
  }
  const brokenBodies = [
    "{",
    "}",
    "[",
    "null",
    "[]",
    "42",
    '"str"',
    '{"config":',
    "{'config':{}}",
    "\u0000",
    '{"config":{"a":1,}}',
    "[".repeat(100_000) + "]".repeat(100_000),
    JSON.stringify({ config: JSON.parse("[".repeat(50) + "]".repeat(50)) }),
  ];
  for (const body of brokenBodies) {
    for (const path of ["/runs", `/runs/${runId}/cancel`, `/runs/${runId}/resume`, `/runs/${runId}/clone`])
      out.push({ method: "POST", path, body });
  }
  // Built as text: JSON.stringify itself overflows the stack on 5000 levels.
  out.push({ method: "POST", path: "/runs", body: `{"config":{"name":"deep","tags":[${'{"a":'.repeat(5000)}1${"}".repeat(5000)}]}}` });
  for (let i = 0; i < 150; i++) {
    const route = pick([
      `/runs`,
      `/runs/${runId}`,
      `/runs/${runId}/metrics`,
      `/runs/${runId}/trajectories`,
      `/runs/${runId}/trajectories/${trajectoryId}`,
      `/runs/${runId}/export.jsonl`,
      `/runs/${runId}/checkpoints`,
    ]);
    const query = Array.from({ length: 1 + Math.floor(r() * 3) }, () => `${pick(QUERY_KEYS)}=${pick(QUERY_VALUES)}`).join("&");
    out.push({ method: "GET", path: `${route}?${query}` });
  }
  for (const id of IDS) {
    for (const suffix of ["", "/cancel", "/metrics", "/trajectories", `/trajectories/${id}`, "/export.jsonl", "/checkpoints"]) {
      out.push({ method: suffix === "/cancel" ? "POST" : "GET", path: `/runs/${id}${suffix}` });
    }
  }
  for (const method of ["PUT", "PATCH", "DELETE"]) out.push({ method, path: `/runs/${runId}`, body: "{}" });
  for (const auth of [
    "Bearer",
    "Bearer ",
    "Basic dXNlcjpwYXNz",
    "bearer rl_short",
    `Bearer rl_${"a".repeat(40)} extra`,
    "Bearer \u00e9",
    `Token ${"x".repeat(9000)}`,
  ]) {
    out.push({ method: "GET", path: "/runs", headers: { authorization: auth }, anonymous: true });
  }
  out.push({ method: "POST", path: "/runs", body: JSON.stringify({ config: { name: "a".repeat(3 * 1024 * 1024) } }) });
  out.push({ method: "POST", path: "/runs", body: "{}", headers: { "content-type": "text/plain" } });
  out.push({ method: "POST", path: "/runs", body: "\u00ff\u00fe{}", headers: { "content-type": "application/json" } });
  // Notes: free text at launch and after it (the plain strings among these are valid notes and may be 200/201).
  for (const value of [...WEIRD_VALUES, "n".repeat(10_001)]) {
    out.push({ method: "POST", path: `/runs/${runId}/notes`, body: JSON.stringify({ notes: value }) });
    out.push({ method: "POST", path: "/runs", body: JSON.stringify({ config: { name: "fuzz notes" }, notes: value }) });
  }
  for (const id of IDS) out.push({ method: "POST", path: `/runs/${id}/notes`, body: '{"notes":"x"}' });
  return out;
}

const LEAK = /\n\s+at\s|node_modules|\.tsx?:\d+|\/work\/|webpack|turbopack|PrismaClient|invalid byte sequence|TypeError|RangeError/i;

test("hundreds of malformed requests get 4xx JSON errors naming the problem: no 5xx, no stack traces", { timeout: 300_000 }, async () => {
  const token = await server.token(["read", "write"], "fuzzer");
  const runId = (await api(server.base, token, "POST", "/runs", { config: { name: "fuzz target" } })).json.id as string;
  const requests = buildRequests(runId, "t-nope");
  assert.ok(requests.length >= 400, `only ${requests.length} requests`);
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  const queue = [...requests];
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      for (let req = queue.shift(); req; req = queue.shift()) {
        const res = await api(server.base, req.anonymous ? null : token, req.method, req.path, req.body, req.headers ?? {});
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const where = `${req.method} ${req.path.slice(0, 120)} ${String(req.body ?? "").slice(0, 120)}`;
        if (res.status >= 500) failures.push(`${res.status} for ${where}: ${res.text.slice(0, 200)}`);
        else if (LEAK.test(res.text)) failures.push(`internals leaked for ${where}: ${res.text.slice(0, 300)}`);
        else if (
          res.status >= 400 &&
          !(res.json?.error && typeof res.json.error.message === "string" && res.json.error.message.length > 10)
        ) {
          failures.push(`${res.status} without a readable error for ${where}: ${res.text.slice(0, 200)}`);
        }
      }
    }),
  );
  assert.deepEqual(failures, [], `statuses: ${JSON.stringify([...statuses])}`);
  assert.ok((statuses.get(400) ?? 0) > 150, `mostly 400s: ${JSON.stringify([...statuses])}`);
  assert.ok((statuses.get(413) ?? 0) >= 1);
  assert.ok((statuses.get(401) ?? 0) >= 6);
  // The server is still healthy and serving normal requests afterwards.
  assert.equal((await api(server.base, token, "GET", `/runs/${runId}`)).status, 200);
});
