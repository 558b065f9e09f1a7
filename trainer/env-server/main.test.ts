/** The environment server's settings: flags over environment variables over defaults, and when a token is required. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { serveOptionsFrom, tokenRequiredFor } from "./main";

test("a token is required beyond loopback (any bind address but 127.x, localhost, ::1) or with --require-token", () => {
  for (const host of ["127.0.0.1", "127.0.0.2", "localhost", "::1"])
    assert.equal(tokenRequiredFor({ host, requireToken: false }), false, host);
  for (const host of ["0.0.0.0", "::", "10.0.0.5", "gpu-node-3"]) assert.equal(tokenRequiredFor({ host, requireToken: false }), true, host);
  assert.equal(tokenRequiredFor({ host: "127.0.0.1", requireToken: true }), true);
});

test("settings: flags win over the environment; the port defaults to PORT + 1; bad values are one sentence", () => {
  const defaults = serveOptionsFrom({}, {});
  assert.deepEqual([defaults.port, defaults.host, defaults.maxSessions, defaults.idleSeconds], [3001, "127.0.0.1", 256, 600]);
  const env = { PORT: "4000", HOST: "0.0.0.0", ROLLOUT_LAB_ENVS_MAX_SESSIONS: "64", ROLLOUT_LAB_ENVS_IDLE_SECONDS: "30" };
  const fromEnv = serveOptionsFrom({}, env);
  assert.deepEqual([fromEnv.port, fromEnv.host, fromEnv.maxSessions, fromEnv.idleSeconds], [4001, "0.0.0.0", 64, 30]);
  assert.equal(serveOptionsFrom({ port: "5005", host: "127.0.0.1" }, { ...env, ROLLOUT_LAB_ENVS_PORT: "4500" }).port, 5005);
  assert.equal(serveOptionsFrom({}, { ROLLOUT_LAB_ENVS_PORT: "4500" }).port, 4500);
  assert.throws(() => serveOptionsFrom({ "max-sessions": "0" }, {}), /--max-sessions must be an integer ≥ 1, got "0"/);
  assert.throws(() => serveOptionsFrom({}, { ROLLOUT_LAB_ENVS_PORT: "99999" }), /ROLLOUT_LAB_ENVS_PORT must be a port number/);
});
