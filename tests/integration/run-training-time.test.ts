/**
 * A run's training time counts its warm-up and its recorded steps, not the hours it sat queued or stopped between
 * them (the run page showed "1h 6m" as the duration of two minutes of training). Real PostgreSQL.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { getRunTrainingSeconds } from "../../server/services/runs";
import { insertQueuedRun } from "../../trainer/record/testing/make-run";
import { createTestDatabase, type TestDatabase } from "./helpers/db";

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase("rl_training_time");
});
after(async () => db?.drop());

test("training time is the warm-up plus each step's own time and recording, whatever the wall clock says", async () => {
  const hourAgo = new Date(Date.now() - 3_600_000);
  const runId = await insertQueuedRun(
    db.prisma,
    { environment: "guess-number", grpo: { steps: 3 } },
    { startedAt: hourAgo, finishedAt: new Date() },
  );
  assert.equal(await getRunTrainingSeconds(db.prisma, runId), null, "nothing recorded yet");
  const points: [string, number, number][] = [
    ["time/sft_s", 0, 30],
    ["time/step_s", 0, 10],
    ["time/rollout_s", 0, 6], // part of step_s: not counted twice
    ["time/record_s", 0, 1],
    // a step recorded before time/step_s existed: its parts
    ["time/rollout_s", 1, 5],
    ["time/update_s", 1, 3],
    ["time/record_s", 1, 0.5],
    ["reward/mean", 1, 0.7],
  ];
  await db.prisma.metricPoint.createMany({ data: points.map(([key, step, value]) => ({ runId, key, step, value })) });
  assert.equal(await getRunTrainingSeconds(db.prisma, runId), 30 + 10 + 1 + 5 + 3 + 0.5);
});
