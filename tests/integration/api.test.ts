/**
 * The REST API under /api/v1 over real HTTP against a running server on the real PostgreSQL: tokens and scopes,
 * the run lifecycle, reads (status, metrics, trajectories, checkpoints), the streamed Simia-RL export, input
 * errors with field paths, 413, 429 with Retry-After, and the OpenAPI document.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { api, startApiServer, type ApiServer } from "./api-harness";
import { revokeToken } from "../../server/services/tokens";
import { insertSyntheticRun } from "./helpers/synthetic-run";

let server: ApiServer;
// Small burst so the rate-limit test trips it quickly; other tests use their own tokens (buckets are per token).
before(async () => {
  server = await startApiServer({ API_RATE_LIMIT_BURST: "20", API_RATE_LIMIT_PER_MINUTE: "60" });
});
after(async () => server?.stop());

test("the OpenAPI document is served without a token and lists the endpoints", async () => {
  const res = await api(server.base, null, "GET", "/openapi.json");
  assert.equal(res.status, 200);
  const paths = Object.keys(res.json.paths as object);
  for (const p of [
    "/runs",
    "/runs/{id}",
    "/runs/{id}/cancel",
    "/runs/{id}/resume",
    "/runs/{id}/metrics",
    "/runs/{id}/trajectories",
    "/runs/{id}/export.jsonl",
  ]) {
    assert.ok(paths.includes(p), p);
  }
  assert.equal((res.json.servers as { url: string }[])[0].url, `${server.base}/api/v1`);
});

test("missing, wrong and revoked tokens are 401; a read token cannot write (403); the token is never echoed", async () => {
  const none = await api(server.base, null, "GET", "/runs");
  assert.equal(none.status, 401);
  assert.match(none.headers.get("www-authenticate") ?? "", /Bearer/);
  const wrong = "rl_" + "x".repeat(40);
  const bad = await api(server.base, wrong, "GET", "/runs");
  assert.equal(bad.status, 401);
  assert.ok(!bad.text.includes(wrong));
  assert.equal((await api(server.base, "not-a-token", "GET", "/runs")).status, 401);

  const read = await server.token(["read"], "reader");
  assert.equal((await api(server.base, read, "GET", "/runs")).status, 200);
  const denied = await api(server.base, read, "POST", "/runs", { config: {} });
  assert.equal(denied.status, 403);
  assert.match(denied.json.error!.message, /write/);
  const row = await server.db.prisma.apiToken.findFirstOrThrow({ where: { name: "reader" } });
  assert.ok(row.lastUsedAt, "last-used time recorded");
  assert.notEqual(row.hash, read, "only a hash is stored");

  await revokeToken(server.db.prisma, row.prefix);
  const revoked = await api(server.base, read, "GET", "/runs");
  assert.equal(revoked.status, 401);
  assert.match(revoked.json.error!.message, /revoked/);
});

test("create → get → cancel → resume → cancel while running → 409 once finished", async () => {
  const token = await server.token(["write"], "ci-job");
  const created = await api(server.base, token, "POST", "/runs", { config: { name: "api run", tags: ["ci"], grpo: { steps: 3 } } });
  assert.equal(created.status, 201, created.text);
  const id = created.json.id as string;
  assert.equal(created.json.url, `${server.base}/runs/${id}`);
  const row = await server.db.prisma.run.findUniqueOrThrow({ where: { id } });
  assert.equal(row.launchedBy, "api");
  assert.equal(row.launchedByName, "ci-job");
  assert.equal(row.totalSteps, 3);
  assert.equal((row.config as { rollout: { maxTurns: number } }).rollout.maxTurns, 10, "defaults filled in the stored config");

  const got = await api(server.base, token, "GET", `/runs/${id}`);
  assert.equal(got.status, 200);
  assert.equal(got.json.status, "queued");
  assert.equal(got.json.progress, 0);

  assert.equal((await api(server.base, token, "POST", `/runs/${id}/cancel`)).json.status, "cancelled");
  assert.equal((await api(server.base, token, "POST", `/runs/${id}/resume`)).json.status, "queued");
  await server.db.prisma.run.update({ where: { id }, data: { status: "running", step: 1 } });
  const cancelRunning = await api(server.base, token, "POST", `/runs/${id}/cancel`);
  assert.equal(cancelRunning.json.status, "running");
  assert.equal(cancelRunning.json.cancelRequested, true);
  assert.equal((await server.db.prisma.run.findUniqueOrThrow({ where: { id } })).cancelRequested, true, "the worker sees the request");
  assert.equal((await api(server.base, token, "POST", `/runs/${id}/resume`)).status, 409, "a running run cannot be resumed");
  await server.db.prisma.run.update({ where: { id }, data: { status: "succeeded" } });
  const late = await api(server.base, token, "POST", `/runs/${id}/cancel`);
  assert.equal(late.status, 409);
  assert.match(late.json.error!.message, /succeeded/);

  const clone = await api(server.base, token, "POST", `/runs/${id}/clone`, { overrides: { seed: 7 } });
  assert.equal(clone.status, 201, clone.text);
  const cloned = await server.db.prisma.run.findUniqueOrThrow({ where: { id: clone.json.id as string } });
  assert.equal(cloned.clonedFromId, id);
  assert.equal(cloned.seed, 7);
  assert.equal(cloned.totalSteps, 3);
});

test("bad configs are 400 with the field path; API keys in a config point to apiKeyEnv", async () => {
  const token = await server.token();
  const secret = await api(server.base, token, "POST", "/runs", {
    config: { llm: { judge: { baseUrl: "https://api.openai.com/v1", model: "gpt-4o-mini", apiKey: "sk-abcdefghijklmnopqrstuvwx" } } },
  });
  assert.equal(secret.status, 400);
  assert.match(secret.json.error!.message, /apiKeyEnv/);
  assert.equal(secret.json.error!.field, "config.llm.judge.apiKey");
  assert.ok(!secret.text.includes("sk-abcdefghijklmnopqrstuvwx"), "the key is not echoed back");

  const typed = await api(server.base, token, "POST", "/runs", { config: { grpo: { groupSize: "four", steps: 0 } } });
  assert.equal(typed.status, 400);
  const paths = typed.json.error!.issues!.map((i) => i.path);
  assert.ok(paths.includes("config.grpo.groupSize") && paths.includes("config.grpo.steps"), JSON.stringify(typed.json));
  assert.match(typed.text, /expected number/);

  const unknown = await api(server.base, token, "POST", "/runs", { config: {}, priority: 1 });
  assert.equal(unknown.status, 400);
  assert.match(unknown.text, /priority/);
  assert.equal((await api(server.base, token, "POST", "/runs", "{not json")).status, 400);
  assert.equal(
    (await api(server.base, token, "POST", "/runs", { config: {}, source: "ui" })).status,
    400,
    "launch source is set by the server",
  );
  const huge = await api(server.base, token, "POST", "/runs", { config: { name: "x".repeat(2 * 1024 * 1024) } });
  assert.equal(huge.status, 413);
  assert.equal(await server.db.prisma.run.count({ where: { name: { startsWith: "x" } } }), 0);
});

test("unknown ids are 404 on every run endpoint; wrong methods are 405", async () => {
  const token = await server.token();
  for (const [method, path] of [
    ["GET", "/runs/nope"],
    ["POST", "/runs/nope/cancel"],
    ["POST", "/runs/nope/resume"],
    ["POST", "/runs/nope/clone"],
    ["GET", "/runs/nope/metrics"],
    ["GET", "/runs/nope/checkpoints"],
    ["GET", "/runs/nope/trajectories/also-nope"],
    ["GET", "/runs/nope/export.jsonl"],
  ]) {
    const res = await api(server.base, token, method, path);
    assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
  }
  assert.equal((await api(server.base, token, "DELETE", "/runs")).status, 405);
  assert.equal((await api(server.base, token, "GET", "/nothing/here")).status, 404);
});

test("reads of a trained run: list with filters, metrics downsampled, trajectories, one trajectory with LLM calls, checkpoints, JSONL export", async () => {
  const token = await server.token(["read"]);
  const id = await insertSyntheticRun(server.db.prisma);
  await server.db.prisma.checkpoint.create({ data: { runId: id, step: 10, location: "/ckpt/10", sizeBytes: BigInt(12345) } });

  const list = await api(server.base, token, "GET", "/runs?status=succeeded,failed&limit=50");
  const listed = list.json.items as { id: string; status: string }[];
  assert.ok(listed.some((r) => r.id === id) && listed.every((r) => r.status === "succeeded" || r.status === "failed"));
  const first = await api(server.base, token, "GET", "/runs?limit=1");
  assert.equal((first.json.items as unknown[]).length, 1);
  assert.equal(typeof first.json.nextCursor, "string", "cursor pagination");
  assert.equal((await api(server.base, token, "GET", "/runs?limit=0")).status, 400);

  const status = await api(server.base, token, "GET", `/runs/${id}`);
  assert.equal(status.json.status, "succeeded");
  assert.equal(typeof (status.json.latestMetrics as Record<string, { value: number }>)["reward/mean"].value, "number");

  const metrics = await api(server.base, token, "GET", `/runs/${id}/metrics?keys=reward/mean,kl&maxPoints=10`);
  assert.equal(metrics.status, 200, metrics.text);
  const series = metrics.json.series as Record<string, { step: number }[]>;
  assert.ok(series["reward/mean"].length <= 10 && series["reward/mean"].length > 0);

  const page = await api(server.base, token, "GET", `/runs/${id}/trajectories?limit=5&sort=reward&dir=desc&split=train`);
  assert.equal(page.status, 200, page.text);
  const items = page.json.items as { id: string; reward: number | null }[];
  assert.equal(items.length, 5);
  assert.ok((page.json.total as number) > 5);
  const one = await api(server.base, token, "GET", `/runs/${id}/trajectories/${items[0].id}`);
  assert.equal(one.status, 200);
  assert.ok(Array.isArray(one.json.conversation) && Array.isArray(one.json.llmCalls));
  assert.equal(one.json.hasPolicyTokens, false, "a run written without a token-sampling policy has no policy view");
  const tokens = await api(server.base, token, "GET", `/runs/${id}/trajectories/${items[0].id}/tokens`);
  assert.equal(tokens.status, 200, tokens.text);
  assert.equal(tokens.json, null);

  const ckpts = await api(server.base, token, "GET", `/runs/${id}/checkpoints`);
  const steps = (ckpts.json.items as { step: number; sizeBytes: number }[]).map((c) => [c.step, c.sizeBytes]);
  assert.deepEqual(
    steps.find(([step]) => step === 10),
    [10, 12345],
    "BigInt sizes come back as JSON numbers",
  );
  assert.deepEqual(
    steps.map(([step]) => step),
    [...steps.map(([step]) => step)].sort((a, b) => a - b),
    "in step order",
  );

  const exported = await api(server.base, token, "GET", `/runs/${id}/export.jsonl?split=train`);
  assert.equal(exported.status, 200);
  assert.match(exported.headers.get("content-type") ?? "", /ndjson/);
  const lines = exported.text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { conversation_history: unknown[]; gpt_call_history: unknown[]; reward: number | null });
  assert.equal(lines.length, await server.db.prisma.trajectory.count({ where: { runId: id, split: "train" } }));
  assert.ok(lines.every((l) => Array.isArray(l.conversation_history) && Array.isArray(l.gpt_call_history)));
  assert.ok(
    lines.some((l) => l.reward === null),
    "unscored episodes keep a null reward",
  );
});

test("each token is rate limited: 429 with Retry-After once its burst is spent", async () => {
  const token = await server.token(["read"]);
  const results = await Promise.all(Array.from({ length: 30 }, () => api(server.base, token, "GET", "/runs?limit=1")));
  const limited = results.filter((r) => r.status === 429);
  assert.ok(limited.length >= 9, `expected ≥ 9 of 30 to be limited, got ${limited.length}`);
  assert.ok(Number(limited[0].headers.get("retry-after")) >= 1);
  const other = await server.token(["read"]);
  assert.equal((await api(server.base, other, "GET", "/runs?limit=1")).status, 200, "other tokens are unaffected");
});
