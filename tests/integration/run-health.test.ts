/**
 * Run health on runs the real worker trained (TF.js policy, real environments, PostgreSQL recording), read over
 * REST from a running server: a run that cannot learn is named as such, with figures and the steps it was seen on.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { api, startApiServer, type ApiServer } from "./api-harness";
import type { RunConfigInput } from "../../lib/run-config";
import type { HealthProblem } from "../../lib/run-health";
import { createRealExecutor } from "../../trainer/loop/real/execute-run";
import { insertQueuedRun } from "../../trainer/record/testing/make-run";
import { TrainerWorker } from "../../trainer/worker/worker";

let server: ApiServer;
let token: string;
const dataDir = mkdtempSync(path.join(tmpdir(), "rl-health-"));
before(async () => {
  process.env.ROLLOUT_LAB_BACKEND ??= "cpu";
  server = await startApiServer();
  token = await server.token(["read"], "health-reader");
});
after(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function train(config: RunConfigInput): Promise<string> {
  const db = server.db.prisma;
  const runId = await insertQueuedRun(db, { evaluation: { testFreq: 0 }, ...config });
  await new TrainerWorker({ db, executeRun: createRealExecutor(dataDir), log: () => {} }).runOnce();
  const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
  assert.equal(run.status, "succeeded", run.error ?? "");
  return runId;
}

async function health(runId: string): Promise<HealthProblem[]> {
  const res = await api(server.base, token, "GET", `/runs/${runId}/health`);
  assert.equal(res.status, 200, res.text);
  return res.json.problems as HealthProblem[];
}

test(
  "an untrained policy on the guessing game never scores: no variance, no advantage, no gradient, a constant reward",
  { timeout: 300_000 },
  async () => {
    // No SFT warm-start: random bytes never form a guess, so every sample of every group scores 0.
    const runId = await train({
      environment: "guess-number",
      policy: { model: "tiny", contextLength: 256 },
      rollout: { maxTurns: 2, maxNewTokens: 8 },
      grpo: { steps: 5, groupsPerStep: 2, groupSize: 2, minibatchSize: 4 },
    });
    const problems = await health(runId);
    const kinds = problems.map((p) => p.kind);
    for (const kind of ["no_variance", "zero_advantage", "constant_reward"])
      assert.ok(kinds.includes(kind as HealthProblem["kind"]), `${kind} in ${kinds.join(", ")}`);
    const noVariance = problems.find((p) => p.kind === "no_variance")!;
    assert.deepEqual(
      [noVariance.firstStep, noVariance.lastStep, noVariance.steps, noVariance.stepsChecked],
      [0, 4, 5, 5],
      "one item for the run, not one per step",
    );
    assert.match(noVariance.detail, /100% of groups/);
    assert.ok(problems.every((p) => p.severity === "error" || p.severity === "warning"));
  },
);

test("a context too small for the environment's prompt: most episodes end context_full", { timeout: 300_000 }, async () => {
  const runId = await train({
    environment: "simulated",
    policy: { model: "tiny", contextLength: 384 },
    rollout: { maxTurns: 4, maxNewTokens: 64 },
    grpo: { steps: 2, groupsPerStep: 2, groupSize: 2, minibatchSize: 4 },
  });
  const problems = await health(runId);
  const full = problems.find((p) => p.kind === "context_full");
  assert.ok(full, problems.map((p) => p.kind).join(", "));
  assert.equal(full.severity, "error");
  assert.match(full.detail, /ended context_full on 2 of 2 steps.*policy\.contextLength/);
});

test("an unknown run is a 404", async () => {
  assert.equal((await api(server.base, token, "GET", "/runs/nope/health")).status, 404);
});
