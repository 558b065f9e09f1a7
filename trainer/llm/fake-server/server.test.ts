import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeLlmServer } from "./server";

test("serves /v1/models, answers unknown routes with 404 JSON, and counts requests", async () => {
  const server = await startFakeLlmServer({ models: ["m1", "m2"] });
  try {
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: { id: string }[] };
    assert.deepEqual(
      models.data.map((m) => m.id),
      ["m1", "m2"],
    );
    const missing = await fetch(`${server.url}/embeddings`, { method: "POST", body: "{}" });
    assert.equal(missing.status, 404);
    const bad = await fetch(`${server.url}/chat/completions`, { method: "POST", body: "{}" });
    assert.equal(bad.status, 400);
    assert.equal(server.stats.requests, 1);
  } finally {
    await server.close();
  }
});

test("a fault rate injects faults reproducibly for a given seed", async () => {
  const run = async () => {
    const server = await startFakeLlmServer({ faults: { rate: 0.5, kinds: ["server_error", "rate_limit"], seed: 9 } });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await fetch(`${server.url}/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }),
      });
      statuses.push(r.status);
      await r.arrayBuffer();
    }
    await server.close();
    return statuses;
  };
  const a = await run();
  assert.deepEqual(a, await run());
  assert.ok(a.includes(200) && a.some((s) => s === 500 || s === 429));
});

test("close() returns even while a request hangs", { timeout: 30_000 }, async (t) => {
  const server = await startFakeLlmServer({ faults: { script: ["hang"] } });
  // Closed whatever happens below, so a failing assertion cannot leave the server holding the file open.
  t.after(() => server.close());
  const pending = fetch(`${server.url}/chat/completions`, { method: "POST", body: JSON.stringify({ messages: [] }) }).catch(
    (e: unknown) => e,
  );
  // Wait until the server holds the request (no fixed sleep: under load it may take a while to arrive).
  while (server.stats.inFlight === 0) await new Promise((r) => setTimeout(r, 5));
  assert.equal(server.stats.inFlight, 1);
  await server.close();
  assert.ok((await pending) instanceof Error);
});
