/**
 * `npm test` on a machine without the CI's services: a PostgreSQL server is provided when none answers, and a
 * missing Chromium is one line with the fix. (Starting the embedded server itself is tested in
 * tests/integration/embedded.test.ts.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { spawnSync } from "node:child_process";
import { answers, DEFAULT_PG_ADMIN_URL, missingChromium, provideTestPostgres, unreachablePostgres } from "./test-services";

test("a set TEST_PG_ADMIN_URL is used as it is, and nothing is started or stopped", async () => {
  const pg = await provideTestPostgres({ TEST_PG_ADMIN_URL: "postgresql://u@db.example:6543/postgres" }, () => assert.fail("no log"));
  assert.deepEqual([pg.adminUrl, pg.source], ["postgresql://u@db.example:6543/postgres", "TEST_PG_ADMIN_URL"]);
  await pg.stop();
});

test("a port is reported answering only while something listens on it", async () => {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  assert.equal(await answers("127.0.0.1", port), true);
  await new Promise<void>((r) => server.close(() => r()));
  assert.equal(await answers("127.0.0.1", port), false);
  assert.match(DEFAULT_PG_ADMIN_URL, /127\.0\.0\.1:5432/);
});

test("no Chromium: one line naming where it looked and how to install it", () => {
  const line = missingChromium({ CHROMIUM_PATH: "/opt/none/chromium" }, () => false);
  assert.match(
    line ?? "",
    /^e2e: not run — no Chromium at \/opt\/none\/chromium\. Install it \(.*apt-get install chromium\) or set CHROMIUM_PATH/,
  );
  assert.doesNotMatch(line ?? "", /\n/);
  assert.equal(
    missingChromium({}, (p) => p === "/usr/bin/chromium"),
    null,
  );
});

/** A loopback port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

test("a TEST_PG_ADMIN_URL where nothing answers is one line naming the server and the fixes; a live one passes", async () => {
  const port = await deadPort();
  const line = await unreachablePostgres(`postgresql://postgres:secret@127.0.0.1:${port}/postgres`);
  assert.match(
    line ?? "",
    new RegExp(`^integration, e2e: not run — nothing answers at postgresql://postgres@127\\.0\\.0\\.1:${port}/postgres`),
  );
  assert.doesNotMatch(line ?? "", /secret|\n/, "no password, one line");
  assert.equal(await unreachablePostgres("postgresql://u@db.example:6543/postgres", async () => true), null);
  assert.equal(await unreachablePostgres("postgresql://u@/postgres?host=/var/run/postgresql", async () => false), null);
  assert.match((await unreachablePostgres("not a url")) ?? "", /^TEST_PG_ADMIN_URL is not a URL/);
});

test("npm test with a TEST_PG_ADMIN_URL that does not answer stops at once with that line and the closing count", async () => {
  const port = await deadPort();
  const res = spawnSync(process.execPath, ["--import", "tsx", "scripts/test.ts", "--only", "integration"], {
    env: { ...process.env, TEST_PG_ADMIN_URL: `postgresql://postgres@127.0.0.1:${port}/postgres` },
    encoding: "utf8",
    timeout: 120_000,
  });
  const lines = res.stdout.trim().split("\n");
  assert.equal(res.status, 1, res.stderr);
  assert.match(lines[lines.length - 2], /^integration, e2e: not run — nothing answers at/);
  assert.equal(lines[lines.length - 1], "0 passed, 1 failed");
  assert.doesNotMatch(res.stdout + res.stderr, /ECONNREFUSED/);
});
