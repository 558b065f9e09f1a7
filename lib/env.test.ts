import { test } from "node:test";
import assert from "node:assert/strict";
import { EnvError, loadEnv } from "./env";

test("defaults give a working local setup with the embedded database", () => {
  const env = loadEnv({});
  assert.equal(env.DATABASE_URL, undefined);
  assert.equal(env.PORT, 3000);
  assert.equal(env.SEED_DEMO, true);
  assert.equal(env.ROLLOUT_LAB_DATA_DIR, ".data");
});

test("each bad variable gets its own sentence naming it", () => {
  try {
    loadEnv({ DATABASE_URL: "mysql://root@localhost/x", PORT: "99999", SEED_DEMO: "maybe" });
    assert.fail("expected EnvError");
  } catch (err) {
    assert.ok(err instanceof EnvError);
    assert.equal(err.problems.length, 3);
    assert.match(err.problems.join("\n"), /DATABASE_URL must start with postgresql:\/\//);
    assert.match(err.problems.join("\n"), /PORT must be a port number/);
    assert.match(err.problems.join("\n"), /SEED_DEMO must be true or false/);
  }
});

test("a URL without a database name is rejected with an example", () => {
  assert.throws(() => loadEnv({ DATABASE_URL: "postgresql://postgres@127.0.0.1:5432" }), /names no database/);
  assert.throws(() => loadEnv({ DATABASE_URL: "not a url" }), /not a valid URL/);
});

test("a bind beyond loopback without a password is refused unless explicitly opted out", () => {
  assert.throws(() => loadEnv({ HOST: "0.0.0.0" }), /HOST=0\.0\.0\.0 would open the dashboard to the network with no password: set DASHBOARD_PASSWORD/);
  assert.equal(loadEnv({ HOST: "0.0.0.0", DASHBOARD_PASSWORD: "pw" }).HOST, "0.0.0.0");
  assert.equal(loadEnv({ HOST: "0.0.0.0", ROLLOUT_LAB_ALLOW_OPEN_DASHBOARD: "true" }).HOST, "0.0.0.0");
  assert.equal(loadEnv({ HOST: "::1" }).HOST, "::1");
});
