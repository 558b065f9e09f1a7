/**
 * `npm test` on a machine without the CI's services: a PostgreSQL server is provided when none answers, and a
 * missing Chromium is one line with the fix. (Starting the embedded server itself is tested in
 * tests/integration/embedded.test.ts.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { answers, DEFAULT_PG_ADMIN_URL, missingChromium, provideTestPostgres } from "./test-services";

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
