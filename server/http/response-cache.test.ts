import { test } from "node:test";
import assert from "node:assert/strict";
import { ResponseCache } from "./response-cache";

test("concurrent identical reads share one computation; the answer is reused for the TTL, then recomputed", async () => {
  let now = 0;
  let computed = 0;
  const cache = new ResponseCache(1000, 100, () => now);
  const compute = async () => {
    computed++;
    await new Promise((r) => setTimeout(r, 10));
    return new Response(`v${computed}`, { status: 200, headers: { "content-type": "text/plain" } });
  };
  const bodies = await Promise.all(Array.from({ length: 30 }, async () => (await cache.get("k", compute)).text()));
  assert.equal(computed, 1);
  assert.deepEqual(new Set(bodies), new Set(["v1"]));
  now = 900;
  assert.equal(await (await cache.get("k", compute)).text(), "v1");
  now = 1001;
  assert.equal(await (await cache.get("k", compute)).text(), "v2", "stale after the TTL");
  cache.clear();
  assert.equal(await (await cache.get("k", compute)).text(), "v3", "a write clears it");
});

test("errors and non-200 answers are never served from the cache", async () => {
  const cache = new ResponseCache(60_000);
  let n = 0;
  const failing = async () => new Response(`e${++n}`, { status: 500 });
  await cache.get("k", failing);
  await new Promise((r) => setImmediate(r));
  assert.equal(await (await cache.get("k", failing)).text(), "e2");
  await assert.rejects(cache.get("x", async () => Promise.reject(new Error("boom"))));
  assert.equal(await (await cache.get("x", async () => new Response("ok"))).text(), "ok");
});
