/**
 * What the end-to-end tests look at, made the way a user's runs are made: real runs trained by a real worker
 * (TF.js policy, environments, offline simulators and judge, PostgreSQL recording) into the e2e database before the
 * browser starts, plus the demo run queued for the web server's worker to train live during the tests.
 *   - "e2e · guess-number": the learning preset, 12 steps (groups whose rewards vary, state diffs, task history)
 *   - "e2e · simulated": the Simia-style environment with its offline user, tool simulator and judge (judge
 *     reasoning, LLM calls, re-scoring)
 *   - "e2e · imported verl run": the verl rollout-dump fixture through the importer and the ingest service, as
 *     `rollout-lab import verl` stores it
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { runImporter } from "../lib/importers";
import { appendSteps, appendTrajectories, createExternalRun, finishExternalRun } from "../server/services/ingest";
import { findEnvironment } from "../lib/environments";
import type { RunConfigInput } from "../lib/run-config";
import type { PrismaClient } from "../db/client";
import { queueDemoRun } from "../server/seed/demo";
import { createRealExecutor } from "../trainer/loop/real/execute-run";
import { insertQueuedRun } from "../trainer/record/testing/make-run";
import { TrainerWorker } from "../trainer/worker/worker";

export const E2E_GUESS_RUN = "e2e · guess-number";
export const E2E_SIMULATED_RUN = "e2e · simulated (offline judge)";
export const E2E_IMPORTED_RUN = "e2e · imported verl run";

const guess = findEnvironment("guess-number")!.preset;
const FIXTURES: RunConfigInput[] = [
  { ...guess, name: E2E_GUESS_RUN, environment: "guess-number", seed: 2, grpo: { ...guess.grpo, steps: 12 }, checkpoint: { saveFreq: 4 } },
  {
    name: E2E_SIMULATED_RUN,
    environment: "simulated",
    seed: 3,
    policy: { model: "tiny", contextLength: 3072 },
    rollout: { maxTurns: 2, maxNewTokens: 32 },
    grpo: { steps: 3, groupsPerStep: 2, groupSize: 4, minibatchSize: 8, microBatchSize: 2 },
    evaluation: { testFreq: 0 },
  },
];

export async function trainE2eFixtures(db: PrismaClient, dataDir: string): Promise<void> {
  const worker = new TrainerWorker({ db, executeRun: createRealExecutor(dataDir), log: () => {} });
  for (const config of FIXTURES) {
    const id = await insertQueuedRun(db, config);
    await worker.runOnce();
    const run = await db.run.findUniqueOrThrow({ where: { id } });
    if (run.status !== "succeeded") throw new Error(`e2e fixture "${config.name}" did not train: ${run.status} ${run.error ?? ""}`);
  }
  await importVerlFixture(db);
  // Shorter than npm start's, so the runs the tests launch do not wait long behind it on the one worker.
  await queueDemoRun(db, 30);
}

async function importVerlFixture(db: PrismaClient): Promise<void> {
  const folder = path.join(import.meta.dirname, "../tests/fixtures/import/verl-rollouts");
  const files = readdirSync(folder).map((name) => ({ path: name, text: readFileSync(path.join(folder, name), "utf8") }));
  const imported = runImporter("verl", files, E2E_IMPORTED_RUN, E2E_IMPORTED_RUN);
  const { id } = await createExternalRun(db, imported.run);
  await appendSteps(db, { runId: id, steps: imported.steps });
  await appendTrajectories(db, { runId: id, trajectories: imported.trajectories });
  await finishExternalRun(db, { runId: id });
}
