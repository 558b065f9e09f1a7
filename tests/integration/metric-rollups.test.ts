/**
 * Metric rollups stay equal to a from-scratch computation over the raw points as steps are recorded, re-recorded
 * and discarded on resume — so long-run charts (which read the rollups) show exactly what the points say.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { discardStepsFrom, recordStep } from "../../trainer/record/record-step";
import { makeStepRecord } from "../../trainer/record/testing/fixtures";
import { insertQueuedRun } from "../../trainer/record/testing/make-run";
import { rebuildMetricRollups } from "../../db/metric-rollups";
import { getMetricSeries } from "../../server/services/metrics";

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase("rl_rollup");
});
after(async () => {
  await db?.drop();
});

async function rollupRows(runId: string) {
  const rows = await db.prisma.metricRollup.findMany({ where: { runId }, orderBy: [{ key: "asc" }, { width: "asc" }, { bucket: "asc" }] });
  return rows.map((r) => [r.key, r.width, r.bucket, r.count, Number(r.sum.toFixed(9)), r.min, r.max, r.lastStep]);
}

function record(step: number) {
  const rec = makeStepRecord(step, 1, 1, 1);
  rec.metrics = { "reward/mean": Math.sin(step / 7), kl: step * 0.001 };
  return rec;
}

test("incremental rollups equal a rebuild after appends, a re-recorded step and a resume", { timeout: 120_000 }, async () => {
  const runId = await insertQueuedRun(db.prisma, { grpo: { steps: 300 } });
  for (let s = 0; s < 40; s++) await recordStep(db.prisma, runId, record(s));
  const r2 = record(17);
  r2.metrics["reward/mean"] = 5; // the same step recorded again with a different value (crash before checkpoint)
  await recordStep(db.prisma, runId, r2);
  await discardStepsFrom(db.prisma, runId, 33);
  for (let s = 33; s < 36; s++) await recordStep(db.prisma, runId, record(s));

  const incremental = await rollupRows(runId);
  await rebuildMetricRollups(db.prisma, runId);
  assert.deepEqual(incremental, await rollupRows(runId));
  const w16 = incremental.filter((r) => r[0] === "reward/mean" && r[1] === 16);
  assert.deepEqual(
    w16.map((r) => r[3]),
    [16, 16, 4],
    "36 steps → buckets of 16, 16 and 4 points",
  );
  assert.equal(w16[1][6], 5, "the re-recorded value is the bucket's max");
});

test("a step re-recorded without one of its keys leaves no rollup for that key", { timeout: 120_000 }, async () => {
  const runId = await insertQueuedRun(db.prisma, { grpo: { steps: 300 } });
  for (let s = 0; s < 3; s++) await recordStep(db.prisma, runId, record(s));
  const once = record(3);
  once.metrics["debug/probe"] = 1; // logged once, then the step is re-run after a crash without it
  await recordStep(db.prisma, runId, once);
  assert.ok((await rollupRows(runId)).some((r) => r[0] === "debug/probe"));
  await recordStep(db.prisma, runId, record(3));
  const incremental = await rollupRows(runId);
  assert.ok(!incremental.some((r) => r[0] === "debug/probe"), "no bucket is left for a key with no points");
  await rebuildMetricRollups(db.prisma, runId);
  assert.deepEqual(incremental, await rollupRows(runId));
});

test("a long run's chart comes from the rollups and agrees with the raw points", { timeout: 120_000 }, async () => {
  const runId = await insertQueuedRun(db.prisma, { grpo: { steps: 100_000 } });
  // 12,800 steps loaded in bulk (as the demo seed does), then rolled up.
  await db.prisma
    .$executeRaw`INSERT INTO "MetricPoint" ("runId", key, step, value) SELECT ${runId}, 'reward/mean', s, s % 100 FROM generate_series(0, 12799) s`;
  await rebuildMetricRollups(db.prisma, runId);
  const series = (await getMetricSeries(db.prisma, { runId, keys: ["reward/mean"], maxPoints: 400 }))["reward/mean"];
  assert.ok(series.length <= 400 && series.length >= 200, `${series.length} points`);
  assert.equal(series.at(-1)!.step, 12_799);
  for (const p of series) {
    assert.ok(p.min <= p.value && p.value <= p.max);
    assert.ok(p.min >= 0 && p.max <= 99);
  }
  const mean = series.reduce((s, p) => s + p.value, 0) / series.length;
  assert.ok(Math.abs(mean - 49.5) < 1, `bucket means average to the series mean (${mean})`);
});
