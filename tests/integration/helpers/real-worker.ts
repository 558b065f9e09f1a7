/**
 * Setup shared by the integration tests that train on the real worker path (TF.js policy, real environment, GRPO
 * update, safetensors checkpoints, PostgreSQL recording): a database and a data folder per test file, workers, and
 * the reads those tests compare runs with.
 */
import { after, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "./db";
import type { RunConfigInput } from "../../../lib/run-config";
import { checkpointDirName } from "../../../trainer/checkpoint/checkpoint";
import { createRealExecutor } from "../../../trainer/loop/real/execute-run";
import { insertQueuedRun } from "../../../trainer/record/testing/make-run";
import { TrainerWorker } from "../../../trainer/worker/worker";

export interface RealWorkerHarness {
  db(): TestDatabase;
  dataDir: string;
  worker(heartbeatMs?: number): TrainerWorker;
  /** Queues a run and has one worker train it to the end. */
  runToEnd(
    config: RunConfigInput,
  ): Promise<{ runId: string; run: Awaited<ReturnType<TestDatabase["prisma"]["run"]["findUniqueOrThrow"]>> }>;
  /** Queues a run, stops its worker (as on SIGTERM) once `step` steps are recorded; returns the re-queued run's id. */
  runUntilStep(config: RunConfigInput, step: number): Promise<string>;
  /** [step, value] of one metric key, in step order. */
  metric(runId: string, key: string): Promise<[number, number][]>;
  /** model.safetensors of the checkpoint after `steps` steps. */
  weightsAfter(runId: string, steps: number): Buffer;
}

/**
 * Registers before/after hooks for a file; tests call the returned harness. `backend` sets ROLLOUT_LAB_BACKEND for
 * this process (a worker picks its backend once); without it the cpu backend is used unless the variable is set.
 */
export function useRealWorker(name: string, backend?: "cpu" | "wasm"): RealWorkerHarness {
  let db: TestDatabase | undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), `${name.replace(/_/g, "-")}-`));
  before(async () => {
    if (backend) process.env.ROLLOUT_LAB_BACKEND = backend;
    else process.env.ROLLOUT_LAB_BACKEND ??= "cpu";
    db = await createTestDatabase(name);
  });
  after(async () => {
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const prisma = () => {
    if (!db) throw new Error("the test database is created in before()");
    return db.prisma;
  };
  const worker = (heartbeatMs?: number) =>
    new TrainerWorker({ db: prisma(), executeRun: createRealExecutor(dataDir), heartbeatMs, log: () => {} });
  return {
    db: () => db as TestDatabase,
    dataDir,
    worker,
    async runToEnd(config) {
      const runId = await insertQueuedRun(prisma(), config);
      assert.equal(await worker().runOnce(), true);
      return { runId, run: await prisma().run.findUniqueOrThrow({ where: { id: runId } }) };
    },
    async runUntilStep(config, step) {
      const runId = await insertQueuedRun(prisma(), config);
      const first = worker(50);
      const running = first.runOnce();
      while ((await prisma().run.findUniqueOrThrow({ where: { id: runId } })).step < step) await new Promise((r) => setTimeout(r, 50));
      await first.stop();
      await running;
      return runId;
    },
    async metric(runId, key) {
      const rows = await prisma().metricPoint.findMany({ where: { runId, key }, orderBy: { step: "asc" } });
      return rows.map((r) => [r.step, r.value]);
    },
    weightsAfter: (runId, steps) => readFileSync(path.join(dataDir, "checkpoints", runId, checkpointDirName(steps), "model.safetensors")),
  };
}
