/** The production RunSink: the loop's results go to Postgres, fenced by the worker's lease. */
import { unscoredCauseOf } from "../../lib/unscored-cause";
import type { PrismaClient } from "../../generated/prisma/client";
import { forgetCheckpointsAfter, listCheckpoints, pruneCheckpoints, recordCheckpoint } from "../record/checkpoint-rows";
import { discardStepsFrom, recordStep } from "../record/record-step";
import { recordEvent } from "../record/run-events";
import { recordUnattachedCalls, unattachedCostUsd } from "../record/unattached-calls";
import { refreshMetricRollups } from "../../db/metric-rollups";
import type { RecordedEvalTrial, RunSink } from "./types";
import { describeWarmup, WARMUP_EVENT_KIND, type WarmupProgress } from "../../lib/warmup-progress";
import type { Prisma } from "../../generated/prisma/client";

/** The run's one warm-up event, created on the first report and rewritten by the next (fenced by the lease). */
async function recordWarmup(db: PrismaClient, runId: string, workerId: string, p: WarmupProgress): Promise<void> {
  const data = p as unknown as Prisma.InputJsonValue;
  const owned = await db.run.count({ where: { id: runId, workerId } });
  if (!owned) return;
  const updated = await db.runEvent.updateMany({
    where: { runId, data: { path: ["kind"], equals: WARMUP_EVENT_KIND } },
    data: { message: describeWarmup(p), data },
  });
  if (updated.count === 0) await db.runEvent.create({ data: { runId, level: "info", message: describeWarmup(p), data } });
}

/** An evaluation's recorded trials, each with what its LLM calls cost (a resume continues after them). */
async function recordedEvalTrials(db: PrismaClient, runId: string): Promise<RecordedEvalTrial[]> {
  const rows = await db.trajectory.findMany({
    where: { runId, split: "eval" },
    select: { id: true, step: true, taskId: true, reward: true, rewardComponents: true, status: true, reasoning: true },
    orderBy: [{ step: "asc" }, { indexInGroup: "asc" }],
  });
  const costs = await db.llmCall.groupBy({ by: ["trajectoryId"], where: { runId }, _sum: { costUsd: true } });
  const costOf = new Map(costs.map((c) => [c.trajectoryId, c._sum.costUsd ?? 0]));
  return rows.map((r) => ({
    step: r.step,
    taskId: r.taskId,
    reward: r.reward,
    components: (r.rewardComponents ?? {}) as Record<string, number>,
    costUsd: costOf.get(r.id) ?? 0,
    unscoredCause: unscoredCauseOf(r),
  }));
}

export function createPrismaSink(db: PrismaClient, runId: string, workerId: string): RunSink {
  return {
    recordStep: (record) => recordStep(db, runId, record, { workerId }),
    async recordLateMetrics(step, metrics) {
      await db.$transaction(async (tx) => {
        for (const [key, value] of Object.entries(metrics)) {
          if (!Number.isFinite(value)) continue;
          await tx.$executeRaw`INSERT INTO "MetricPoint" ("runId", "key", "step", "value") VALUES (${runId}, ${key}, ${step}, ${value})
            ON CONFLICT ("runId", "key", "step") DO UPDATE SET "value" = EXCLUDED."value"`;
        }
        await refreshMetricRollups(tx, runId, step, { noPointsDeleted: true }); // upserts only
      });
    },
    async setPhase(phase) {
      await db.run.updateMany({ where: { id: runId, workerId }, data: { phase } });
    },
    recordWarmup: (p) => recordWarmup(db, runId, workerId, p),
    event: (level, message, extra) => recordEvent(db, runId, level, message, extra),
    listCheckpoints: () => listCheckpoints(db, runId),
    recordCheckpoint: (row) => recordCheckpoint(db, runId, row),
    pruneCheckpoints: (keepLast) => pruneCheckpoints(db, runId, keepLast),
    async resetTo(step) {
      await forgetCheckpointsAfter(db, runId, step);
      await discardStepsFrom(db, runId, step);
    },
    recordedEvalTrials: () => recordedEvalTrials(db, runId),
    recordUnattachedCalls: (calls) => recordUnattachedCalls(db, runId, calls),
    unattachedCostUsd: () => unattachedCostUsd(db, runId),
    async setTotalSteps(steps) {
      await db.run.updateMany({ where: { id: runId, workerId }, data: { totalSteps: steps } });
    },
  };
}
