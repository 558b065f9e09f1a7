/**
 * The SFT warm-start (grpo.sftWarmupSteps) and KL in the reward (grpo.klInReward) on the real worker path: TF.js
 * policy, the guess-number environment, real GRPO update, real recording. What a user sees on the run page — the
 * sft/* and kl/* metrics, the warm-start event — is read back from PostgreSQL. The last test stops and resumes a
 * run that uses both, which must equal the uninterrupted run: no second warm-start, the same KL reference.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { RunConfigInput } from "../../lib/run-config";
import { useRealWorker } from "./helpers/real-worker";

const BASE: RunConfigInput = {
  environment: "guess-number",
  seed: 5,
  grpo: { steps: 1, groupsPerStep: 2, groupSize: 2, minibatchSize: 4 },
  rollout: { maxTurns: 4, maxNewTokens: 8, concurrency: 4 },
  checkpoint: { saveFreq: 1, keepLast: 10 },
  evaluation: { testFreq: 0 },
};

const h = useRealWorker("rl_sft_kl");
const { dataDir, runToEnd, metric } = h;
const prisma = () => h.db().prisma;

test(
  "sftWarmupSteps: 2 warm-starts on the environment's demonstrations and records the losses and an event on step 0",
  { timeout: 180_000 },
  async () => {
    const { runId, run } = await runToEnd({ ...BASE, name: "sft warm-start", grpo: { ...BASE.grpo, sftWarmupSteps: 2 } });
    assert.equal(run.status, "succeeded", run.error ?? "");
    const [[firstStep, first]] = await metric(runId, "sft/loss_first");
    const [[, last]] = await metric(runId, "sft/loss_last");
    assert.equal(firstStep, 0);
    assert.ok(first > 0 && last > 0 && Number.isFinite(first) && Number.isFinite(last));
    const event = await prisma().runEvent.findFirst({ where: { runId, message: { startsWith: "SFT warm-start" } } });
    assert.ok(event, "the warm-start is in the run's event log");
    assert.equal(event.step, 0);
    assert.match(
      event.message,
      /^SFT warm-start: 2 steps on 8 demonstrations from environment "guess-number", loss \d+\.\d{3} → \d+\.\d{3}\.$/,
    );
    assert.deepEqual(
      (await metric(runId, "reward/mean")).map(([s]) => s),
      [0],
      "GRPO ran after it",
    );
  },
);

test(
  "a demonstrations file is used when given; a malformed one fails the run naming the file and the line",
  { timeout: 180_000 },
  async () => {
    // Run configs may only name files inside the worker's data roots (<data dir>/datasets by default).
    mkdirSync(path.join(dataDir, "datasets"), { recursive: true });
    const file = path.join(dataDir, "datasets", "demos.jsonl");
    const chat = (guess: string) =>
      JSON.stringify({
        messages: [
          { role: "user", content: "Guess 1-8" },
          { role: "assistant", content: guess },
        ],
      });
    writeFileSync(file, `${chat("4")}\n${chat("6")}\n${chat("2")}\n`);
    const ok = await runToEnd({
      ...BASE,
      name: "sft from file",
      dataset: { demonstrationsPath: file },
      grpo: { ...BASE.grpo, sftWarmupSteps: 2 },
    });
    assert.equal(ok.run.status, "succeeded", ok.run.error ?? "");
    const event = await prisma().runEvent.findFirst({ where: { runId: ok.runId, message: { startsWith: "SFT warm-start" } } });
    assert.match(event?.message ?? "", new RegExp(`2 steps on 3 demonstrations from ${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`));

    writeFileSync(file, `${chat("4")}\n{"messages": [{"role": "user", "content": "Guess 1-8"}]}\n`);
    const bad = await runToEnd({
      ...BASE,
      name: "sft bad file",
      dataset: { demonstrationsPath: file },
      grpo: { ...BASE.grpo, sftWarmupSteps: 2 },
    });
    assert.equal(bad.run.status, "failed");
    assert.equal(bad.run.error, `${file} (line 2): no assistant message to learn from: the warm-start trains only on "assistant" turns`);
    assert.equal(await prisma().metricPoint.count({ where: { runId: bad.runId } }), 0, "it failed before any step");
  },
);

test(
  "klInReward with klCoef 0.05 records the KL charged to the reward next to the environment's reward",
  { timeout: 180_000 },
  async () => {
    const { runId, run } = await runToEnd({ ...BASE, name: "kl in reward", grpo: { ...BASE.grpo, klInReward: true, klCoef: 0.05 } });
    assert.equal(run.status, "succeeded", run.error ?? "");
    // Step 0 samples from the weights the reference was copied from, so nothing is charged yet (the run with both
    // settings below checks the penalty once the policy has moved).
    assert.deepEqual(await metric(runId, "kl/in_reward_mean"), [[0, 0]]);
    assert.deepEqual(await metric(runId, "kl/in_reward_token_mean"), [[0, 0]]);
    assert.deepEqual(await metric(runId, "reward/penalised_mean"), await metric(runId, "reward/mean"));
    assert.equal((await metric(runId, "kl")).length, 0, "the KL loss term is off in this mode");
    assert.equal(await prisma().trajectory.count({ where: { runId, advantage: { not: null } } }), 4, "every trajectory got an advantage");
  },
);

test(
  "a run with both, stopped after step 2 and resumed by another worker, equals the uninterrupted run",
  { timeout: 300_000 },
  async () => {
    const config: RunConfigInput = { ...BASE, grpo: { ...BASE.grpo, steps: 4, sftWarmupSteps: 2, klInReward: true, klCoef: 0.05 } };
    const reference = await runToEnd({ ...config, name: "both, uninterrupted" });
    assert.equal(reference.run.status, "succeeded", reference.run.error ?? "");

    const resumed = await h.runUntilStep({ ...config, name: "both, interrupted" }, 2);
    const mid = await prisma().run.findUniqueOrThrow({ where: { id: resumed } });
    assert.ok(mid.status === "queued" && mid.step >= 2 && mid.step < 4, `stopped mid-run (${mid.status} at step ${mid.step})`);
    assert.equal(await h.worker().runOnce(), true);
    const done = await prisma().run.findUniqueOrThrow({ where: { id: resumed } });
    assert.equal(done.status, "succeeded", done.error ?? "");

    // The reference is the warm-started policy, so step 0 pays nothing; each update drifts the policy away (Adam's
    // moments from the warm-start keep it moving even while the task rewards are flat) and later steps pay for it.
    const kl = await metric(reference.runId, "kl/in_reward_mean");
    const reward = await metric(reference.runId, "reward/mean");
    const penalised = await metric(reference.runId, "reward/penalised_mean");
    assert.equal(kl[0][1], 0, "step 0 samples from the reference itself");
    assert.ok(kl[3][1] > 0, `the policy has drifted from the reference by step 3: ${JSON.stringify(kl)}`);
    for (const [i, [, k]] of kl.entries()) {
      assert.ok(
        Math.abs(penalised[i][1] - (reward[i][1] - 0.05 * k)) < 1e-6,
        `step ${i}: ${penalised[i][1]} = ${reward[i][1]} - 0.05 x ${k}`,
      );
    }

    const warmStarts = await prisma().runEvent.count({ where: { runId: resumed, message: { startsWith: "SFT warm-start" } } });
    assert.equal(warmStarts, 1, "the resumed worker did not warm-start again");
    for (const key of ["reward/mean", "kl/in_reward_mean", "reward/penalised_mean"]) {
      assert.deepEqual(await metric(resumed, key), await metric(reference.runId, key), key);
    }
    assert.ok(h.weightsAfter(resumed, 4).equals(h.weightsAfter(reference.runId, 4)), "final weights are bit-identical");
  },
);
