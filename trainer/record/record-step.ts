/**
 * recordStep: everything one training step produced, written in ONE transaction — metric points, groups,
 * trajectories, their LLM calls, step events and the run's step / latestReward / phase. A crash mid-write rolls
 * back the whole step, so the dashboard never shows half of one and a resumed run simply writes it again.
 *
 * Idempotent: the step's previous rows (from a run that crashed after recording but before checkpointing) are
 * deleted first, inside the same transaction, so recording a step twice leaves exactly one copy.
 * Fenced: with `workerId`, the write only happens while that worker still holds the run's lease; a worker that was
 * presumed dead (lease expired, run reclaimed) cannot overwrite the new owner's rows.
 */
import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";
import { discardMetricRollupsFrom, refreshMetricRollups } from "../../db/metric-rollups";
import { insertJsonRows } from "../../db/bulk-insert";
import type { StepRecord } from "./step-record";
import { storable } from "../../lib/storable";
import { llmCallRow } from "./llm-call-row";

/** This worker's lease on a run (or a re-scoring job) expired and another worker claimed it: stop, write nothing. */
export class LeaseLostError extends Error {
  constructor(id: string, workerId: string, what = "Run") {
    super(`${what} ${id} is no longer leased to worker ${workerId} (its lease expired and another worker claimed it).`);
    this.name = "LeaseLostError";
  }
}

export interface RecordStepOptions {
  /** Only write while this worker holds the lease (see file comment). */
  workerId?: string;
  /** Interactive-transaction timeout; a 16×8×10-turn step is ~3k rows. */
  timeoutMs?: number;
  /** Test hook called between writes; throwing from it must roll the whole step back. */
  onStage?: (
    stage: "run" | "cleared" | "groups" | "trajectories" | "policy-tokens" | "llm-calls" | "metrics" | "events",
  ) => void | Promise<void>;
}

/** Marks events written by recordStep so re-recording the step replaces them (other events of that step stay). */
export const STEP_EVENT_ORIGIN = "recordStep";

type Tx = Prisma.TransactionClient;
const json = (v: unknown): Prisma.InputJsonValue => v as Prisma.InputJsonValue;
const nullableJson = (v: unknown) => (v === undefined || v === null ? Prisma.DbNull : json(v));

export async function recordStep(db: PrismaClient, runId: string, given: StepRecord, options: RecordStepOptions = {}): Promise<void> {
  // Conversations, LLM replies and errors may carry NUL or lone surrogates, which PostgreSQL refuses (storable.ts).
  const record = storable(given);
  const stage = options.onStage ?? (() => {});
  const metricEntries = Object.entries(record.metrics).filter(
    (e): e is [string, number] => typeof e[1] === "number" && Number.isFinite(e[1]),
  );
  const latestReward = record.latestReward !== undefined ? record.latestReward : (record.metrics["reward/mean"] ?? null);

  await db.$transaction(
    async (tx: Tx) => {
      // The run row first: it takes the row lock (serialising with heartbeats / cancel) and checks the lease.
      const updated = await tx.run.updateMany({
        where: { id: runId, ...(options.workerId ? { workerId: options.workerId } : {}) },
        data: {
          step: record.step + 1,
          phase: record.phase === undefined ? "rollout" : record.phase,
          ...(latestReward !== null && Number.isFinite(latestReward) ? { latestReward } : {}),
        },
      });
      if (updated.count === 0) {
        if (options.workerId) throw new LeaseLostError(runId, options.workerId);
        throw new Error(`Run ${runId} does not exist.`);
      }
      await stage("run");

      const replacedPoints = await clearStep(tx, runId, record.step);
      await stage("cleared");

      const nowIso = new Date().toISOString();
      const groupRows: Prisma.GroupCreateManyInput[] = [];
      const trajectoryRows: Record<string, unknown>[] = [];
      const callRows: Record<string, unknown>[] = [];
      const tokenRows: Record<string, unknown>[] = [];
      for (const g of record.groups) {
        const groupId = randomUUID();
        groupRows.push({
          id: groupId,
          runId,
          step: record.step,
          indexInStep: g.indexInStep,
          split: g.split,
          taskId: g.taskId,
          task: nullableJson(g.task),
          rewardMean: g.rewardMean,
          rewardStd: g.rewardStd,
          dropped: g.dropped,
        });
        for (const t of g.trajectories) {
          const trajectoryId = randomUUID();
          trajectoryRows.push({
            id: trajectoryId,
            groupId,
            runId,
            step: record.step,
            split: g.split,
            taskId: g.taskId,
            indexInGroup: t.indexInGroup,
            reward: t.reward,
            rewardComponents: t.components,
            advantage: t.advantage,
            reasoning: t.reasoning,
            status: t.status,
            endReason: t.endReason,
            error: t.error,
            numTurns: t.numTurns,
            promptTokens: t.promptTokens,
            responseTokens: t.responseTokens,
            conversation: t.conversation,
            finalState: t.finalState ?? null,
            expectedState: t.expectedState ?? null,
            createdAt: nowIso,
          });
          if (t.policyTokens) tokenRows.push({ trajectoryId, tokens: t.policyTokens });
          for (const c of t.llmCalls) callRows.push(llmCallRow(c, runId, trajectoryId) as unknown as Record<string, unknown>);
        }
      }
      if (groupRows.length) await tx.group.createMany({ data: groupRows });
      await stage("groups");
      await insertJsonRows(tx, "Trajectory", trajectoryRows);
      await stage("trajectories");
      await insertJsonRows(tx, "TrajectoryTokens", tokenRows);
      await stage("policy-tokens");
      await insertJsonRows(tx, "LlmCall", callRows);
      await stage("llm-calls");
      const now = new Date();
      if (metricEntries.length) {
        await tx.metricPoint.createMany({
          data: metricEntries.map(([key, value]) => ({ runId, key, step: record.step, value, wallTime: now })),
        });
      }
      await refreshMetricRollups(tx, runId, record.step, { noPointsDeleted: replacedPoints === 0 });
      await stage("metrics");
      if (record.events?.length) {
        await tx.runEvent.createMany({
          data: record.events.map((e) => ({
            runId,
            step: record.step,
            level: e.level,
            message: e.message,
            data: json({ ...e.data, origin: STEP_EVENT_ORIGIN }),
          })),
        });
      }
      await stage("events");
    },
    { timeout: options.timeoutMs ?? 60_000, maxWait: 10_000 },
  );
}

/**
 * Deletes what an earlier recording of this step wrote, in one statement (one round trip, not three): its groups
 * (cascading to their trajectories and those trajectories' LLM calls), metric points and step events. Returns how
 * many metric points there were: none for a step recorded for the first time.
 */
async function clearStep(tx: Tx, runId: string, step: number): Promise<number> {
  const [row] = await tx.$queryRaw<{ points: bigint }[]>`
    WITH groups AS (DELETE FROM "Group" WHERE "runId" = ${runId} AND "step" = ${step}),
         events AS (DELETE FROM "RunEvent" WHERE "runId" = ${runId} AND "step" = ${step} AND "data"->>'origin' = ${STEP_EVENT_ORIGIN}),
         points AS (DELETE FROM "MetricPoint" WHERE "runId" = ${runId} AND "step" = ${step} RETURNING 1)
    SELECT count(*) AS points FROM points`;
  return Number(row.points);
}

/**
 * On resume from a checkpoint taken after `fromStep` completed steps: remove everything recorded for steps ≥
 * fromStep (they will be re-run), so the curves continue from the checkpoint without stale points of a future
 * that the resumed run will rewrite differently.
 */
export async function discardStepsFrom(db: PrismaClient, runId: string, fromStep: number): Promise<void> {
  await db.$transaction(async (tx: Tx) => {
    await tx.group.deleteMany({ where: { runId, step: { gte: fromStep } } });
    await tx.metricPoint.deleteMany({ where: { runId, step: { gte: fromStep } } });
    await discardMetricRollupsFrom(tx, runId, fromStep);
    await tx.runEvent.deleteMany({ where: { runId, step: { gte: fromStep }, data: { path: ["origin"], equals: STEP_EVENT_ORIGIN } } });
    await tx.run.update({ where: { id: runId }, data: { step: fromStep } });
  });
}
