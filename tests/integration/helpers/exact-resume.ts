/**
 * The exact-resume check, defined once and run per backend (each in its own test file: a worker process picks its
 * TF.js backend once): a run stopped mid-way and finished by another worker ends with the same weights, bit for
 * bit, and the same curve as an uninterrupted run with the same seed — no step missing or duplicated.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { RunConfigInput } from "../../../lib/run-config";
import { useRealWorker } from "./real-worker";

const CONFIG: RunConfigInput = {
  environment: "guess-number",
  seed: 11,
  grpo: { steps: 4, groupsPerStep: 2, groupSize: 2, minibatchSize: 4 },
  rollout: { maxTurns: 4, maxNewTokens: 8, concurrency: 4 },
  checkpoint: { saveFreq: 1, keepLast: 10 },
  evaluation: { testFreq: 0 },
};

export function defineExactResumeTest(opts: {
  database: string;
  backend: "cpu" | "wasm";
  expectBackend: RegExp;
  skip?: string | false;
}): void {
  const h = useRealWorker(opts.database, opts.backend);
  test(
    `${opts.backend}: a run stopped after 2 steps and resumed by another worker equals the uninterrupted run`,
    { timeout: 240_000, skip: opts.skip },
    async () => {
      const reference = await h.runToEnd({ ...CONFIG, name: "uninterrupted" });
      assert.equal(reference.run.status, "succeeded", reference.run.error ?? "");
      assert.match(reference.run.backend ?? "", opts.expectBackend);

      // Stop (as on SIGTERM) once step 2 is recorded: the worker checkpoints at the step boundary and re-queues the run.
      const resumed = await h.runUntilStep({ ...CONFIG, name: "interrupted" }, 2);
      const mid = await h.db().prisma.run.findUniqueOrThrow({ where: { id: resumed } });
      assert.equal(mid.status, "queued", "released for another worker");
      assert.ok(mid.step >= 2 && mid.step < 4, `stopped mid-run (at step ${mid.step})`);

      assert.equal(await h.worker().runOnce(), true);
      const done = await h.db().prisma.run.findUniqueOrThrow({ where: { id: resumed } });
      assert.equal(done.status, "succeeded", done.error ?? "");
      assert.equal(done.claims, 2, "resumed under the same run id");

      assert.deepEqual(
        await h.metric(resumed, "reward/mean"),
        await h.metric(reference.runId, "reward/mean"),
        "same rewards at every step, none missing or duplicated",
      );
      assert.ok(h.weightsAfter(resumed, 4).equals(h.weightsAfter(reference.runId, 4)), "final weights are bit-identical");
      const trajectories = await h.db().prisma.trajectory.count({ where: { runId: resumed } });
      assert.equal(trajectories, 4 * 2 * 2, "every step's trajectories recorded exactly once");
    },
  );
}
