import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ApiClient } from "./api-client";

test("a create sends one Idempotency-Key and keeps it across its retries; other calls send none", async () => {
  const seen: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers["idempotency-key"] as string | undefined);
    // The first attempt "loses" its reply, as a proxy in front of a restarting server would.
    res.writeHead(seen.length === 1 ? 503 : 201, { "content-type": "application/json" });
    res.end(JSON.stringify({ id: "run_1" }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const client = new ApiClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: "t", sleep: async () => {} });
    assert.deepEqual(await client.create("/runs", { config: {} }), { id: "run_1" });
    assert.equal(seen.length, 2);
    assert.match(seen[0] ?? "", /^[0-9a-f-]{36}$/);
    assert.equal(seen[1], seen[0], "the retry carries the same key");
    await client.create("/runs", { config: {} });
    assert.notEqual(seen[2], seen[0], "a new create gets a new key");
    await client.json("GET", "/runs");
    assert.equal(seen[3], undefined);
  } finally {
    server.close();
  }
});
