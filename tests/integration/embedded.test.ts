/**
 * Embedded mode as a new user meets it: `npm start` with no DATABASE_URL brings up the embedded PostgreSQL server,
 * serves the dashboard, and after a SIGTERM and a restart the data is still there. The database port needs the
 * password from the data folder. Killing the start process outright leaves nothing running. Also: a port in use is
 * one clear sentence.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { descendantsOf, freePort, portOpen, startApp, stillRunning, stopApp as stop, waitFor } from "./helpers/start-app";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "rollout-lab-embedded-"));
after(() => rmSync(dataDir, { recursive: true, force: true }));

async function listRunIds(base: string): Promise<string[]> {
  const res = await fetch(`${base}/api/trpc/runs.list?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`);
  const body = (await res.json()) as { result: { data: { json: { items: { id: string }[] } } } };
  return body.result.data.json.items.map((r) => r.id);
}

test("npm start without DATABASE_URL serves the demo run, and the data survives a restart", { timeout: 300_000 }, async () => {
  const port = await freePort();
  const dbPort = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { PORT: String(port), EMBEDDED_DB_PORT: String(dbPort), ROLLOUT_LAB_DATA_DIR: dataDir };

  const first = startApp(env);
  await waitFor(() => first.output().includes("Rollout Lab is running at"), 240_000, "first start", first.output);
  const health = (await (await fetch(`${base}/api/health`)).json()) as { ok: boolean; database: { mode: string } };
  assert.equal(health.ok, true);
  assert.equal(health.database.mode, "embedded");
  const idsBefore = await listRunIds(base);
  assert.equal(idsBefore.length, 1, "the empty database got the demo run");

  // The database port is not open to any local user: no password, no session; the password file is owner-only.
  const passwordless = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${dbPort}/rollout_lab`, password: "" });
  await assert.rejects(passwordless.connect(), /password/i);
  await passwordless.end().catch(() => {});
  assert.equal(statSync(path.join(dataDir, "postgres.password")).mode & 0o777, 0o600);

  const tree = descendantsOf(first.child.pid!).map((p) => p.pid);
  assert.equal(await stop(first.child), 0, "SIGTERM shuts down cleanly");
  assert.match(first.output(), /Stopped\./);
  assert.deepEqual(stillRunning(tree), [], "no child (web server, database) outlives a clean stop");

  const second = startApp(env);
  await waitFor(() => second.output().includes("Rollout Lab is running at"), 120_000, "restart", second.output);
  assert.deepEqual(await listRunIds(base), idsBefore, "same runs after restart, not re-seeded");
  assert.doesNotMatch(second.output(), /queued the demo run/);

  // A second instance on the same port fails fast with one sentence, not a stack trace.
  const clash = startApp(env);
  const code = await new Promise<number | null>((resolve) => clash.child.once("exit", resolve));
  assert.equal(code, 1);
  assert.match(clash.output(), /Port \d+ \(web server\) is already in use/);
  assert.doesNotMatch(clash.output(), /\n\s+at .*\(/);

  assert.equal(await stop(second.child), 0);
});

test("a SIGKILLed start process leaves no web server, worker or database behind", { timeout: 300_000 }, async () => {
  const port = await freePort();
  const dbPort = await freePort();
  const killedDir = mkdtempSync(path.join(os.tmpdir(), "rollout-lab-killed-"));
  try {
    const app = startApp({
      PORT: String(port),
      EMBEDDED_DB_PORT: String(dbPort),
      ROLLOUT_LAB_DATA_DIR: killedDir,
      START_WORKER: "true",
      SEED_DEMO: "false",
    });
    await waitFor(() => app.output().includes("Rollout Lab is running at"), 240_000, "start", app.output);
    await waitFor(() => app.output().includes("waiting for runs"), 60_000, "the worker", app.output);
    const tree = descendantsOf(app.child.pid!);
    assert.ok(
      tree.some((p) => p.cmdline.includes("trainer/main.ts")),
      "a worker runs",
    );
    assert.ok(
      tree.some((p) => p.cmdline.includes(`postgres -D ${killedDir}`)),
      "the database runs",
    );

    app.child.kill("SIGKILL");
    await waitFor(
      async () => stillRunning(tree.map((p) => p.pid)).length === 0 && !(await portOpen(port)) && !(await portOpen(dbPort)),
      60_000,
      "the orphans to stop",
      () => JSON.stringify(stillRunning(tree.map((p) => p.pid))),
    );
  } finally {
    rmSync(killedDir, { recursive: true, force: true });
  }
});

test("a malformed DATABASE_URL is one sentence naming the variable", { timeout: 60_000 }, async () => {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    env: { ...process.env, DATABASE_URL: "mysql://root@localhost/x", PORT: String(await freePort()) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  assert.equal(code, 1);
  assert.match(out, /DATABASE_URL must start with postgresql:\/\//);
  assert.doesNotMatch(out, /\n\s+at .*\(/);
});
