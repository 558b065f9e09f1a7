/**
 * Stopping `npm start` the ways an operator does, on the real command (npm → sh → node scripts/start.ts, the
 * embedded PostgreSQL, the web server and a trainer worker), started in a process group of its own as a terminal
 * starts a job:
 *   - Ctrl-C (SIGINT to the whole group) is a graceful stop: the worker checkpoints its run and puts it back in the
 *     queue; it is not left "running" to be reclaimed later as a crash, and no finished step is lost;
 *   - kill -9 of npm itself leaves nothing behind: no process, no open port.
 * Along the way, the CLI and a separate worker given only ROLLOUT_LAB_DATA_DIR find the embedded database on the
 * port it really uses (not the default), and once it is gone the CLI says why.
 */
import { after, afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { embeddedDatabaseUrl, readEmbeddedPassword } from "../../db/embedded-credentials";
import { api } from "./api-harness";
import { descendantsOf, freePort, portOpen, stillRunning, waitFor } from "./helpers/start-app";

// Each test has its own data folder: one test's app still finishing its stop must not hold the next one's.
const dataDir = mkdtempSync(path.join(os.tmpdir(), "rollout-lab-npm-start-"));
const killDataDir = mkdtempSync(path.join(os.tmpdir(), "rollout-lab-npm-kill-"));
/** Every npm start's process group: a test that fails midway must not leave its app holding the data folder. */
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
});
after(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(killDataDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  output: () => string;
  /** Waits for a line of output; fails at once (with the output) if npm start ends first. */
  printed: (text: string, timeoutMs: number, what: string) => Promise<void>;
  /** npm's exit: it re-raises a signal its script stopped on, so a Ctrl-C ends it by SIGINT once the script is done. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Only what a user sets: no DATABASE_URL (embedded mode), no EMBEDDED_DB_PORT for the tools that follow. */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ROLLOUT_LAB_DATA_DIR: dataDir, ...extra };
  for (const k of ["DATABASE_URL", "EMBEDDED_DB_PORT", "npm_lifecycle_event", "npm_execpath"]) if (!(k in extra)) delete env[k];
  return env;
}

/** `npm start` as a terminal runs it: the leader of a new process group (so a Ctrl-C can reach all of it). */
function npmStart(env: Record<string, string>): Started {
  const child = spawn("npm", ["start"], { env: userEnv(env), stdio: ["ignore", "pipe", "pipe"], detached: true });
  started.push(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const printed = (text: string, timeoutMs: number, what: string) =>
    waitFor(
      () => {
        if (out.includes(text)) return true;
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`npm start ended before ${what}:\n${out}`);
        return false;
      },
      timeoutMs,
      what,
      () => out,
    );
  return { child, output: () => out, printed, exited };
}

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const res = spawnSync(process.execPath, ["bin/rollout-lab.mjs", ...args], { env: userEnv({}), encoding: "utf8", timeout: 60_000 });
  return { status: res.status, stdout: res.stdout.trim(), stderr: res.stderr.trim() };
}

async function query<T>(dbPort: number, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: embeddedDatabaseUrl(readEmbeddedPassword(dataDir)!, dbPort) });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

const RUN = {
  name: "stopped by ctrl-c",
  environment: "guess-number",
  environmentOptions: { max: 4 },
  policy: { model: "tiny" },
  grpo: { steps: 500, groupsPerStep: 2, groupSize: 2, minibatchSize: 4 },
  rollout: { maxTurns: 2, maxNewTokens: 4 },
  evaluation: { testFreq: 0 },
  checkpoint: { saveFreq: 100 },
};

test(
  "Ctrl-C stops gracefully: the run is checkpointed and back in the queue, not a crash; tools find the database",
  { timeout: 600_000 },
  async () => {
    const port = await freePort();
    const dbPort = await freePort();
    const env = { PORT: String(port), EMBEDDED_DB_PORT: String(dbPort), SEED_DEMO: "false", START_WORKER: "true" };
    const app = npmStart(env);
    await app.printed("Rollout Lab is running at", 300_000, "npm start");
    await app.printed("waiting for runs", 60_000, "the worker");

    // The CLI, given only the data folder, reaches the embedded database on its real port.
    const created = cli(["tokens", "create", "--name", "ctrl-c test"]);
    assert.equal(created.status, 0, created.stderr);
    const base = `http://127.0.0.1:${port}`;
    const launched = await api(base, created.stdout, "POST", "/runs", { config: RUN });
    assert.equal(launched.status, 201, launched.text);
    const runId = launched.json.id as string;
    const stepOf = async () => (await query<{ step: number }>(dbPort, `SELECT step FROM "Run" WHERE id = $1`, [runId]))[0].step;
    await waitFor(async () => (await stepOf()) >= 3, 240_000, "three steps", app.output);

    process.kill(-app.child.pid!, "SIGINT"); // what the terminal does on Ctrl-C
    const { code, signal } = await app.exited;
    assert.ok(code === 0 || signal === "SIGINT", `npm ended with ${code ?? signal}:\n${app.output()}`);
    assert.match(app.output(), /\[rollout-lab\] Stopped\./);
    assert.doesNotMatch(app.output(), /again: exiting now/, "one Ctrl-C is one stop request");
    assert.match(app.output(), /back in the queue|stopping at the next step boundary/);

    // Look at what the stop left, with the database up again and no worker to touch the run.
    const again = npmStart({ ...env, START_WORKER: "false" });
    await again.printed("Rollout Lab is running at", 300_000, "restart");
    const [run] = await query<{ status: string; workerId: string | null; step: number; crashes: number }>(
      dbPort,
      `SELECT status, "workerId", step, crashes FROM "Run" WHERE id = $1`,
      [runId],
    );
    assert.equal(run.status, "queued", "released, not left running for a lease to expire");
    assert.equal(run.workerId, null);
    assert.equal(run.crashes, 0);
    assert.ok(run.step >= 3);
    const checkpoints = await query<{ step: number }>(dbPort, `SELECT step FROM "Checkpoint" WHERE "runId" = $1`, [runId]);
    assert.ok(
      checkpoints.some((c) => c.step === run.step),
      `a checkpoint at step ${run.step} (saveFreq is 100): no finished step is thrown away; got ${JSON.stringify(checkpoints)}\n${app.output()}`,
    );
    const steps = await query<{ step: number }>(dbPort, `SELECT DISTINCT step FROM "MetricPoint" WHERE "runId" = $1 ORDER BY step`, [
      runId,
    ]);
    assert.deepEqual(
      steps.map((s) => s.step),
      Array.from({ length: run.step }, (_, i) => i),
    );

    // A worker started by hand with only the data folder finds the database too.
    const worker = spawn(process.execPath, ["--import", "tsx", "trainer/main.ts"], { env: userEnv({}), stdio: ["ignore", "pipe", "pipe"] });
    let workerOut = "";
    worker.stdout!.on("data", (d) => (workerOut += d));
    worker.stderr!.on("data", (d) => (workerOut += d));
    const workerExit = new Promise((resolve) => worker.once("exit", resolve));
    await waitFor(
      () => workerOut.includes("waiting for runs"),
      120_000,
      "a hand-started worker",
      () => workerOut,
    );
    assert.match(workerOut, new RegExp(`waiting for runs on 127\\.0\\.0\\.1:${dbPort} \\(embedded database\\)`));
    worker.kill("SIGTERM");
    await workerExit;

    const againTree = descendantsOf(again.child.pid!);
    process.kill(-again.child.pid!, "SIGTERM");
    const second = await again.exited;
    assert.ok(second.code === 0 || second.signal === "SIGTERM", `npm ended with ${second.code ?? second.signal}`);
    await waitFor(
      () => stillRunning(againTree.map((p) => p.pid)).length === 0,
      60_000,
      "every process of the stopped app to end",
      () => JSON.stringify(stillRunning(againTree.map((p) => p.pid))),
    );
    const refused = cli(["tokens", "list"]);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, new RegExp(`Cannot use the database at .*:${dbPort}/rollout_lab: \\S.*127\\.0\\.0\\.1:${dbPort}`));
  },
);

test("kill -9 of npm start leaves no process and no open port behind", { timeout: 600_000 }, async () => {
  const port = await freePort();
  const dbPort = await freePort();
  const app = npmStart({
    PORT: String(port),
    EMBEDDED_DB_PORT: String(dbPort),
    SEED_DEMO: "false",
    START_WORKER: "true",
    ROLLOUT_LAB_DATA_DIR: killDataDir,
  });
  await app.printed("Rollout Lab is running at", 300_000, "npm start");
  await app.printed("waiting for runs", 60_000, "the worker");
  const tree = descendantsOf(app.child.pid!);
  assert.ok(
    tree.some((p) => p.cmdline.includes("scripts/start.ts")),
    "start.ts runs under npm",
  );
  assert.ok(tree.some((p) => p.cmdline.includes(`postgres -D ${killDataDir}`)));

  app.child.kill("SIGKILL"); // npm itself, not the process group
  await waitFor(
    async () => stillRunning(tree.map((p) => p.pid)).length === 0 && !(await portOpen(port)) && !(await portOpen(dbPort)),
    90_000,
    "everything npm started to stop",
    () => JSON.stringify(stillRunning(tree.map((p) => p.pid))),
  );
});
