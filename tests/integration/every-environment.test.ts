/**
 * Every environment the launch form offers trains a real step on the worker with the offline provider (tiny
 * policy, real GRPO update, real recording), and its stored trajectories carry attributed turns and reward
 * components — what the inspector shows.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { ENVIRONMENT_CATALOG } from "../../lib/environments";
import type { ConversationMessage } from "../../lib/conversation";
import { createRealExecutor } from "../../trainer/loop/real/execute-run";
import { insertQueuedRun } from "../../trainer/record/testing/make-run";
import { TrainerWorker } from "../../trainer/worker/worker";
import { createCaller } from "../../server/api/root";
import { createTrpcContext } from "../../server/api/trpc";

let db: TestDatabase;
const dataDir = mkdtempSync(path.join(tmpdir(), "rl-every-env-"));
before(async () => {
  db = await createTestDatabase("rl_envs");
});
after(async () => {
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

for (const env of ENVIRONMENT_CATALOG) {
  test(
    `${env.name}: one training step on the worker, trajectories with attributed turns and reward components`,
    { timeout: 180_000 },
    async () => {
      const runId = await insertQueuedRun(db.prisma, {
        ...env.preset,
        name: `smoke ${env.name}`,
        environment: env.name,
        // The work is bounded, not just its time (one environment took over 240 s on a loaded machine): the tiny
        // policy instead of the preset's (attention over a 3-10 K context is most of a step), one warm-start step
        // of one demonstration per micro-batch (the SFT path exercised, not the preset's 30-40 steps), one GRPO step
        // of one group of two. The preset's context stays: it is what the environment's opening prompt needs.
        policy: { ...env.preset.policy, model: "tiny" },
        grpo: {
          ...env.preset.grpo,
          steps: 1,
          groupsPerStep: 1,
          groupSize: 2,
          minibatchSize: 2,
          microBatchSize: 1,
          sftWarmupSteps: Math.min(1, env.preset.grpo?.sftWarmupSteps ?? 0),
        },
        rollout: { ...env.preset.rollout, maxTurns: 3, maxNewTokens: 16 },
        checkpoint: { saveFreq: 1, keepLast: 1 },
        evaluation: { testFreq: 0 },
      });
      const worker = new TrainerWorker({ db: db.prisma, executeRun: createRealExecutor(dataDir), log: () => {} });
      assert.equal(await worker.runOnce(), true);
      const run = await db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
      assert.equal(run.status, "succeeded", run.error ?? "");
      const trajectories = await db.prisma.trajectory.findMany({ where: { runId } });
      assert.equal(trajectories.length, 2);
      for (const t of trajectories) {
        const conversation = t.conversation as unknown as ConversationMessage[];
        assert.ok(
          conversation.some((m) => m.source === "policy"),
          "the policy's turns are attributed",
        );
        assert.ok(conversation.every((m) => typeof m.source === "string" && typeof m.turn === "number"));
        assert.ok(t.status === "unscored" ? t.reward === null : typeof t.reward === "number");
        if (t.status !== "unscored" && t.status !== "error")
          assert.ok(Object.keys(t.rewardComponents as object).length > 0, "reward components recorded");
        // The inspector's formula names components this environment really records.
        const shown = await createCaller(createTrpcContext(db.prisma)).trajectories.get({ runId, id: t.id });
        assert.ok(shown.rewardFormula, "the inspector shows how the reward is computed");
        if (t.reward !== null) {
          const missing = shown.rewardFormula.terms.filter((k) => !(k in (t.rewardComponents as object)));
          assert.deepEqual(missing, [], `formula terms missing from the recorded components ${JSON.stringify(t.rewardComponents)}`);
        }
      }
      const keys = await db.prisma.metricPoint.findMany({ where: { runId }, select: { key: true, value: true } });
      assert.ok(keys.some((k) => k.key === "reward/mean") || trajectories.every((t) => t.reward === null));
      // the group's two episodes wait for the policy together, so their turns are sampled as batches of two
      const batch = keys.find((k) => k.key === "rollout/policy_batch_mean")?.value;
      assert.ok(batch !== undefined && batch !== null && batch > 1, `policy turns were batched (mean batch ${batch})`);
    },
  );
}
