/**
 * `npm test` on a machine with no PostgreSQL: the embedded server the product ships is started for the tests, takes
 * a CREATE DATABASE as the test helpers issue it, and is gone after stop().
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import pg from "pg";
import { answers, provideTestPostgres } from "../../scripts/test-services";

async function unusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

test("with nothing on the PostgreSQL port and no TEST_PG_ADMIN_URL, an embedded server serves the tests and stops after", async () => {
  const lines: string[] = [];
  const service = await provideTestPostgres({}, (l) => lines.push(l), await unusedPort());
  try {
    assert.equal(service.source, "embedded");
    assert.match(lines.join("\n"), /starting the embedded PostgreSQL for the tests/);
    const client = new pg.Client({ connectionString: service.adminUrl });
    await client.connect();
    await client.query(`CREATE DATABASE "rl_embedded_probe"`);
    await client.query(`DROP DATABASE "rl_embedded_probe"`);
    await client.end();
  } finally {
    await service.stop();
  }
  const url = new URL(service.adminUrl);
  assert.equal(await answers(url.hostname, Number(url.port)), false, "the server is stopped");
});
