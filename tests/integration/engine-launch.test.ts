/**
 * The worker as launcher of an outside engine (trainer/engines/engine-executor.ts), with a stand-in process for the
 * GPU job (python/engine_stand_in.py: TRL's adapter and the stdlib logger, started exactly as the rendered TRL job
 * is, minus the GPU). Real parts: PostgreSQL, the environment server, the REST API over HTTP, the worker's claim,
 * heartbeat, cancel and settle path. One run, one page: the engine's episodes and metrics land in the launched run.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { goldEpisodes, startTestEnvServer, type TestEnvServer } from "./helpers/env-server";
import { handleRestRequest } from "../../server/rest/handler";
import { TokenBucketLimiter } from "../../server/auth/rate-limit";
import { createRun, cancelRun } from "../../server/services/run-lifecycle";
import { TrainerWorker } from "../../trainer/worker/worker";
import { executeEngineRun } from "../../trainer/engines/engine-executor";

const PYTHON = process.env.ROLLOUT_LAB_PYTHON || "python3";
const skip = spawnSync(PYTHON, ["--version"]).status === 0 ? false : `needs ${PYTHON}`;
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const STAND_IN = path.join(import.meta.dirname, "python", "engine_stand_in.py");

let db: TestDatabase;
let envs: TestEnvServer;
let rest: Server;
let restUrl: string;
let dataDir: string;
before(async () => {
  if (skip) return;
  db = await createTestDatabase("rl_engine");
  envs = await startTestEnvServer({ db, tokenRequired: true });
  const limiter = new TokenBucketLimiter({ perMinute: 100_000, burst: 100_000 });
  // The REST API's own handler on a loopback port (what the Python logger talks to), without building the web app.
  rest = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const response = await handleRestRequest(
      new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: body.length ? body : undefined }),
      { db: db.prisma, limiter },
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => rest.listen(0, "127.0.0.1", r));
  restUrl = `http://127.0.0.1:${(rest.address() as AddressInfo).port}`;
  dataDir = mkdtempSync(path.join(tmpdir(), "rl-engine-"));
});
after(async () => {
  await new Promise((r) => rest?.close(r));
  await envs?.close();
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function launch(
  mode: "complete" | "fail" | "hang",
  onStarted?: (runId: string) => Promise<void>,
  engine: "trl" | "verl" | "skyrl" = "trl",
  python = PYTHON,
) {
  const [gold] = await goldEpisodes("guess-number");
  const { id } = await createRun(db.prisma, {
    launchedBy: "api",
    config: {
      name: `stand-in ${mode}`,
      environment: "guess-number",
      execution: { engine },
      policy: { model: "Qwen/Qwen3-0.6B" },
      grpo: { groupSize: 2, steps: 2, minibatchSize: 8, ...(engine === "trl" ? { dualClip: null } : {}) },
    },
  });
  process.env.STAND_IN_MODE = mode;
  process.env.STAND_IN_GOLD = JSON.stringify(gold);
  const worker = new TrainerWorker({
    db: db.prisma,
    heartbeatMs: 200,
    log: () => {},
    executeRun: (ctx) =>
      executeEngineRun(ctx, {
        dataDir,
        site: { checkout: ROOT, python, envServerUrl: envs.url, webUrl: restUrl, seeds: 2 },
        ...(engine === "trl" ? { command: () => [PYTHON, STAND_IN] } : {}),
        killGraceMs: 2_000,
      }),
  });
  const done = worker.runOnce();
  if (onStarted) await onStarted(id);
  assert.equal(await done, true, "the worker claimed the engine run");
  await envs.server.recorder.drain();
  const run = await db.prisma.run.findUniqueOrThrow({ where: { id } });
  const events = await db.prisma.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  return { id, run, gold, events, lines: events.map((e) => `${e.level} ${e.message}`) };
}

test(
  "a TRL run is started with its rendered config, records its episodes and metrics into itself, and succeeds on exit 0",
  { skip },
  async () => {
    const { id, run, lines } = await launch("complete");
    assert.equal(run.status, "succeeded", lines.join("\n"));
    assert.ok(
      lines.some((l) => l.startsWith("info Starting trl in ")),
      "the launch is in the run's log",
    );
    assert.ok(
      lines.some((l) => l.startsWith("info stand-in: num_generations=2 ")),
      "the process read the rendered GRPOConfig (group size 2)",
    );
    assert.ok(lines.includes("info stand-in: other-run 403"), "the run's token cannot create another run");
    assert.ok(lines.includes("info stand-in: finish 403"), "nor finish its run");
    assert.ok(lines.some((l) => l.startsWith("info trl exited with code 0")));

    const trajectories = await db.prisma.trajectory.findMany({ where: { runId: id }, select: { step: true, reward: true } });
    assert.deepEqual(trajectories.map((t) => t.step).sort(), [0, 1], "the engine's episodes, grouped by its step, in the launched run");
    const openenvRuns = await db.prisma.run.count({ where: { source: "openenv" } });
    assert.equal(openenvRuns, 0, "no separate external run was made for them");
    const loss = await db.prisma.metricPoint.findMany({ where: { runId: id, key: "train/loss" }, orderBy: { step: "asc" } });
    assert.deepEqual(
      loss.map((p) => [p.step, Math.round(p.value * 10) / 10]),
      [
        [0, 0.5],
        [1, 0.4],
      ],
      "the logger's metrics are the launched run's",
    );
    const rewardCurve = await db.prisma.metricPoint.findMany({ where: { runId: id, key: "reward/mean" }, orderBy: { step: "asc" } });
    assert.deepEqual(
      rewardCurve.map((p) => p.step),
      [0, 1],
      "the environment server's per-step curves are the launched run's too",
    );
    const tokens = await db.prisma.apiToken.findMany({ where: { runId: id } });
    assert.equal(tokens.length, 1);
    assert.ok(tokens[0].revokedAt, "the run's token is revoked once the process is gone");
  },
);

test("a non-zero exit fails the run with the engine's last error line", { skip }, async () => {
  const { run, lines } = await launch("fail");
  assert.equal(run.status, "failed", lines.join("\n"));
  assert.match(run.error ?? "", /trl exited with code 3: CUDA out of memory \(stand-in\)/);
  assert.ok(lines.includes("warn CUDA out of memory (stand-in)"), "stderr is in the run's log as warnings");
});

test("cancelling the run stops the engine's process group and the run ends cancelled", { skip }, async () => {
  let pid = 0;
  const { run, lines } = await launch("hang", async (id) => {
    for (let i = 0; i < 600; i++) {
      const e = await db.prisma.runEvent.findFirst({ where: { runId: id, message: { startsWith: "stand-in: num_generations" } } });
      if (e) {
        pid = Number(/pid=(\d+)/.exec(e.message)![1]);
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(pid > 0, "the engine started");
    await cancelRun(db.prisma, id);
  });
  assert.equal(run.status, "cancelled", lines.join("\n"));
  assert.ok(lines.some((l) => /Stopping trl \(cancel\)/.test(l)));
  assert.throws(() => process.kill(pid, 0), "the engine's process is gone");
});

test(
  "a verl run runs its rendered script: verl's file-logger metrics are forwarded and episodes group by verl's step",
  { skip },
  async () => {
    // The rendered run-verl.sh runs as is; the Python it calls is verl's stand-in (python/fake_verl_python.py), which
    // drives the adapter's agent loop, interaction, tools and compute_score the way verl's trainer does.
    const fakePython = path.join(dataDir, "fake-verl-python");
    writeFileSync(fakePython, `#!/bin/sh\nexec ${PYTHON} ${path.join(import.meta.dirname, "python", "fake_verl_python.py")} "$@"\n`);
    chmodSync(fakePython, 0o755);
    const { id, run, gold, lines } = await launch("complete", undefined, "verl", fakePython);
    assert.equal(run.status, "succeeded", lines.join("\n"));
    assert.ok(lines.includes("info fake verl: prepared 2 rows"), lines.join("\n"));
    const steps = await db.prisma.trajectory.findMany({ where: { runId: id }, select: { step: true, reward: true } });
    assert.deepEqual(steps.map((t) => t.step).sort(), [1, 1, 2, 2], "rollout.n episodes per verl step, grouped by that step");
    assert.ok(steps.every((t) => t.reward === gold.expectedReward));
    const score = await db.prisma.metricPoint.findMany({ where: { runId: id, key: "critic/score/mean" }, orderBy: { step: "asc" } });
    assert.deepEqual(
      score.map((p) => [p.step, p.value]),
      [
        [1, gold.expectedReward],
        [2, gold.expectedReward],
      ],
      "verl's logged score (compute_score's) is the run's curve",
    );
    assert.equal(await db.prisma.run.count({ where: { source: "openenv" } }), 0);
  },
);

test(
  "a SkyRL run runs its rendered script: the env reads its settings from the launcher and its episodes land in the run",
  { skip },
  async () => {
    const fakePython = path.join(dataDir, "fake-skyrl-python");
    writeFileSync(fakePython, `#!/bin/sh\nexec ${PYTHON} ${path.join(import.meta.dirname, "python", "fake_skyrl_python.py")} "$@"\n`);
    chmodSync(fakePython, 0o755);
    const { id, run, gold, lines } = await launch("complete", undefined, "skyrl", fakePython);
    assert.equal(run.status, "succeeded", lines.join("\n"));
    assert.ok(lines.includes("info fake skyrl: prepared 2 rows"), lines.join("\n"));
    const rewards = lines.filter((l) => l.startsWith("info fake skyrl: step")).map((l) => Number(l.split(" reward ")[1]));
    // SkyRL sums the step rewards: the episode's reward, counted once
    assert.deepEqual(
      rewards,
      [1, 2, 3, 4].map(() => gold.expectedReward),
    );
    const steps = await db.prisma.trajectory.findMany({ where: { runId: id }, select: { step: true, reward: true } });
    // the entry's generator hands each env SkyRL's global_step (from 1): episodes group by it
    assert.deepEqual(steps.map((t) => t.step).sort(), [1, 1, 2, 2]);
    assert.ok(steps.every((t) => t.reward === gold.expectedReward));
    assert.equal(await db.prisma.run.count({ where: { source: "openenv" } }), 0);
  },
);
