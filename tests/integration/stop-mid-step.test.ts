/**
 * Runs stop when asked, not at the next step boundary, and keep their lease while the policy trains: on the real
 * worker path (TF.js policy, real environment, LLM calls over HTTP to a slow loopback server).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { startFakeLlmServer, type FakeLlmServer } from "../../trainer/llm/fake-server/server";
import { createRealExecutor } from "../../trainer/loop/real/execute-run";
import { insertQueuedRun } from "../../trainer/record/testing/make-run";
import { TrainerWorker, type RunExecutor } from "../../trainer/worker/worker";
import { useRealWorker } from "./helpers/real-worker";

const { db, dataDir } = useRealWorker("rl_test_stop");
let slow: FakeLlmServer;
before(async () => {
  // Every simulated-user reply takes 1.5 s: a step of 2 × 2 episodes × 8 turns takes well over 10 s.
  slow = await startFakeLlmServer({ latencyMs: 1500 });
});
after(() => slow.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test(
  "a cancel lands mid-step: the step in flight is dropped, nothing half-recorded, the run is cancelled",
  { timeout: 120_000 },
  async () => {
    const prisma = db().prisma;
    const runId = await insertQueuedRun(prisma, {
      environment: "simulated",
      grpo: { steps: 3, groupsPerStep: 2, groupSize: 2, minibatchSize: 4 },
      rollout: { maxTurns: 8, maxNewTokens: 8 },
      llm: { userSimulator: { baseUrl: slow.url, model: "slow-user" } },
      evaluation: { testFreq: 0 },
    });
    const worker = new TrainerWorker({
      db: prisma,
      executeRun: createRealExecutor(dataDir),
      leaseMs: 30_000,
      heartbeatMs: 200,
      log: () => {},
    });
    const running = worker.runOnce();
    while (slow.stats.requests === 0) await sleep(50);
    await prisma.run.update({ where: { id: runId }, data: { cancelRequested: true } });
    await running;

    const run = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
    assert.equal(run.status, "cancelled");
    assert.equal(run.step, 0, "step 0 was still rolling out: a step-boundary cancel would have recorded it first");
    assert.equal(await prisma.metricPoint.count({ where: { runId } }), 0, "nothing of the dropped step was recorded");
    assert.equal(await prisma.group.count({ where: { runId } }), 0);
    assert.ok(slow.stats.requests < 2 * 2 * 8, `the rollouts stopped early (${slow.stats.requests} simulated-user calls)`);
  },
);

test(
  "the lease stays alive while training holds the main thread far longer than the lease: no other worker takes the run over",
  { timeout: 120_000 },
  async () => {
    const prisma = db().prisma;
    const runId = await insertQueuedRun(prisma, { environment: "guess-number", grpo: { steps: 1 }, evaluation: { testFreq: 0 } });
    const leaseMs = 2000;
    const blockMs = 3 * leaseMs;
    // A TF.js kernel on the CPU backend holds the thread like this busy loop does: no timer of the event loop runs.
    const holdMainThread: RunExecutor = async () => {
      const until = Date.now() + blockMs;
      while (Date.now() < until);
      return { kind: "completed", steps: 1 };
    };
    const owner = new TrainerWorker({
      db: prisma,
      databaseUrl: db().url,
      executeRun: holdMainThread,
      leaseMs,
      heartbeatMs: 200,
      log: () => {},
    });
    // The thief runs in its own process, so the owner's blocked thread cannot hold it up.
    const thief = spawn(process.execPath, ["--import", "tsx", "tests/integration/helpers/lease-thief.ts", db().url, String(leaseMs)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let thiefSaid = "";
    thief.stdout!.on("data", (d) => (thiefSaid += d));
    while (!thiefSaid.includes("ready")) await sleep(20);
    await owner.runOnce();
    await sleep(leaseMs);
    thief.kill("SIGTERM");
    await new Promise((r) => thief.once("exit", r));
    assert.doesNotMatch(thiefSaid, /stole/, "the lease never lapsed");

    const run = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
    assert.equal(run.status, "succeeded", run.error ?? "");
    assert.equal(run.claims, 1, "never reclaimed: the lease thread kept the lease while the main thread was busy");
  },
);
