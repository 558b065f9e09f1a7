/** The production RunSink: the loop's results go to Postgres, fenced by the worker's lease. */
import type { PrismaClient } from "../../generated/prisma/client";
import { forgetCheckpointsAfter, listCheckpoints, pruneCheckpoints, recordCheckpoint } from "../record/checkpoint-rows";
import { discardStepsFrom, recordStep } from "../record/record-step";
import { recordEvent } from "../record/run-events";
import { refreshMetricRollups } from "../../db/metric-rollups";
import type { RunSink } from "./types";

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
        await refreshMetricRollups(tx, runId, step);
      });
    },
    async setPhase(phase) {
      await db.run.updateMany({ where: { id: runId, workerId }, data: { phase } });
    },
    event: (level, message, extra) => recordEvent(db, runId, level, message, extra),
    listCheckpoints: () => listCheckpoints(db, runId),
    recordCheckpoint: (row) => recordCheckpoint(db, runId, row),
    pruneCheckpoints: (keepLast) => pruneCheckpoints(db, runId, keepLast),
    async resetTo(step) {
      await forgetCheckpointsAfter(db, runId, step);
      await discardStepsFrom(db, runId, step);
    },
  };
}
