/**
 * Real worker processes and real signals: SIGTERM stops at a step boundary, releases the run and exits 0;
 * SIGKILL at random moments loses nothing — another worker reclaims the run after the lease expires and the
 * finished run has every step exactly once, with the same curve as an uninterrupted run.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { parseRunConfig, type RunConfigInput } from "../../lib/run-config";
import { trainRun } from "../../trainer/loop/train-run";
import { createFakeDeps } from "../../trainer/loop/testing/fake-deps";
import { createMemorySink } from "../../trainer/loop/memory-sink";
import { insertQueuedRun } from "../../trainer/record/testing/make-run";

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase("rl_signals");
});
after(async () => {
  await db?.drop();
});

const CONFIG: RunConfigInput = {
  seed: 9,
  grpo: { steps: 12, groupsPerStep: 2, groupSize: 2, minibatchSize: 4 },
  checkpoint: { saveFreq: 3, keepLast: 2 },
  evaluation: { testFreq: 4, samplesPerTask: 2, maxTasks: 2 },
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function spawnWorker(
  checkpointDir: string,
  extraEnv: Record<string, string> = {},
): { child: ChildProcess; exit: Promise<{ code: number | null; signal: string | null }> } {
  const child = spawn(process.execPath, ["--import", "tsx", "trainer/worker/testing/fake-worker-main.ts"], {
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      FAKE_CHECKPOINT_DIR: checkpointDir,
      FAKE_GROUP_DELAY_MS: "40",
      WORKER_POLL_MS: "100",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on("exit", (code, signal) => {
      if (code !== 0 && signal === null) console.error(output);
      resolve({ code, signal });
    }),
  );
  return { child, exit };
}

async function runStep(runId: string): Promise<number> {
  return (await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).step;
}

async function waitForStep(runId: string, atLeast: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await runStep(runId)) < atLeast) {
    if (Date.now() > deadline) throw new Error(`run did not reach step ${atLeast}`);
    await sleep(30);
  }
}

test("SIGTERM: the worker checkpoints at a step boundary, puts the run back in the queue and exits 0", async () => {
  const runId = await insertQueuedRun(db.prisma, CONFIG);
  const { child, exit } = spawnWorker(mkdtempSync(path.join(tmpdir(), "rl-sig-")));
  await waitForStep(runId, 2);
  child.kill("SIGTERM");
  const { code } = await exit;
  assert.equal(code, 0);
  const run = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  assert.equal(run.status, "queued");
  assert.equal(run.workerId, null);
  assert.ok(run.step < 12);
  assert.ok(
    await db.prisma.checkpoint.findUnique({ where: { runId_step: { runId, step: run.step } } }),
    "checkpoint at the step it stopped at",
  );
  await db.prisma.run.update({ where: { id: runId }, data: { status: "cancelled" } });
});

test("SIGKILL at random moments: another worker reclaims the run and it finishes with every step exactly once", async () => {
  const runId = await insertQueuedRun(db.prisma, CONFIG);
  const dir = mkdtempSync(path.join(tmpdir(), "rl-kill-"));
  const lease = { WORKER_LEASE_MS: "800", WORKER_HEARTBEAT_MS: "100" };
  const kills: number[] = [];
  for (const target of [2, 6]) {
    const { child, exit } = spawnWorker(dir, lease);
    await waitForStep(runId, target);
    await sleep(Math.floor(Math.random() * 150)); // somewhere inside a step: rollout, update or the recording transaction
    child.kill("SIGKILL");
    await exit;
    kills.push(await runStep(runId));
  }
  const last = spawnWorker(dir, lease);
  const deadline = Date.now() + 25_000;
  while ((await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).status !== "succeeded") {
    if (Date.now() > deadline) throw new Error("run did not finish after the kills");
    await sleep(50);
  }
  last.child.kill("SIGTERM");
  assert.equal((await last.exit).code, 0);

  const run = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  assert.equal(run.claims, 3, `claimed once per worker (killed at steps ${kills.join(", ")})`);
  const points = await db.prisma.metricPoint.findMany({ where: { runId, key: "reward/mean" }, orderBy: { step: "asc" } });
  assert.deepEqual(
    points.map((p) => p.step),
    Array.from({ length: 12 }, (_, i) => i),
    "no step missing or duplicated",
  );
  assert.equal(await db.prisma.group.count({ where: { runId, split: "train" } }), 12 * 2);

  const reference = createMemorySink();
  await trainRun(parseRunConfig(CONFIG), createFakeDeps({ checkpointDir: mkdtempSync(path.join(tmpdir(), "rl-ref-")) }), reference, {
    signal: new AbortController().signal,
    reason: () => null,
  });
  assert.deepEqual(
    points.map((p) => [p.step, p.value]),
    reference.series("reward/mean"),
    "the curve is the uninterrupted one",
  );
});
