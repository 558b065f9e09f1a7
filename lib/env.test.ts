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

test("ROLLOUT_LAB_TRUSTED_PROXIES takes addresses and CIDR ranges; anything else is named at start-up", () => {
  assert.equal(
    loadEnv({ ROLLOUT_LAB_TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8, ::1" }).ROLLOUT_LAB_TRUSTED_PROXIES,
    "127.0.0.1, 10.0.0.0/8, ::1",
  );
  assert.throws(() => loadEnv({ ROLLOUT_LAB_TRUSTED_PROXIES: "proxy.internal" }), /ROLLOUT_LAB_TRUSTED_PROXIES lists "proxy\.internal"/);
});

test("a URL without a database name is rejected with an example", () => {
  assert.throws(() => loadEnv({ DATABASE_URL: "postgresql://postgres@127.0.0.1:5432" }), /names no database/);
  assert.throws(() => loadEnv({ DATABASE_URL: "not a url" }), /not a valid URL/);
});

test("a bind beyond loopback without a password is refused unless explicitly opted out", () => {
  assert.throws(
    () => loadEnv({ HOST: "0.0.0.0" }),
    /HOST=0\.0\.0\.0 would open the dashboard to the network with no password: set DASHBOARD_PASSWORD/,
  );
  assert.equal(loadEnv({ HOST: "0.0.0.0", DASHBOARD_PASSWORD: "pw" }).HOST, "0.0.0.0");
  assert.equal(loadEnv({ HOST: "0.0.0.0", ROLLOUT_LAB_ALLOW_OPEN_DASHBOARD: "true" }).HOST, "0.0.0.0");
  assert.equal(loadEnv({ HOST: "::1" }).HOST, "::1");
});

test("every variable read later is validated the same way: a bad value is one sentence naming it, never a silent default", async () => {
  const { readEnvVar, checkWorkerEnv, EnvError } = await import("./env");
  assert.equal(readEnvVar("WORKER_POLL_MS", {}), undefined);
  assert.equal(readEnvVar("WORKER_POLL_MS", { WORKER_POLL_MS: "250" }), 250);
  assert.throws(
    () => readEnvVar("WORKER_POLL_MS", { WORKER_POLL_MS: "fast" }),
    (e: unknown) => e instanceof EnvError && /WORKER_POLL_MS must be a positive number \(milliseconds\), got "fast"/.test(e.message),
  );
  assert.equal(readEnvVar("API_RATE_LIMIT_BURST", {}), 120);
  assert.throws(() => readEnvVar("API_RATE_LIMIT_BURST", { API_RATE_LIMIT_BURST: "-3" }), /API_RATE_LIMIT_BURST must be a positive number/);
  assert.throws(
    () => checkWorkerEnv({ WORKER_LEASE_MS: "0", ROLLOUT_LAB_BACKEND: "gpu", ROLLOUT_LAB_MAX_STEP_MEMORY_GB: "lots" }),
    (e: unknown) =>
      e instanceof EnvError && e.problems.length === 3 && /ROLLOUT_LAB_BACKEND must be tensorflow, wasm or cpu/.test(e.message),
  );
  assert.doesNotThrow(() => checkWorkerEnv({ WORKER_LEASE_MS: "60000", ROLLOUT_LAB_NATIVE: "0", ROLLOUT_LAB_ISA: "avx2" }));
  assert.throws(() => checkWorkerEnv({ ROLLOUT_LAB_ISA: "avx-512" }), /ROLLOUT_LAB_ISA must be baseline, avx2 or avx512/);
  assert.throws(
    () => checkWorkerEnv({ ROLLOUT_LAB_ALLOW_PRIVATE_LLM: "ture" }),
    /ROLLOUT_LAB_ALLOW_PRIVATE_LLM must be true or false, got "ture"/,
  );
});
