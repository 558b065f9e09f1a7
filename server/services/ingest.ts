/**
 * Runs trained elsewhere, streamed or imported (lib/ingest.ts has the input shapes). An external run is a Run row
 * with `source` naming its trainer; workers never claim it (trainer/worker/lease.ts). Its steps and samples land in
 * the same tables as internal runs, so every page and the re-scoring jobs work on it unchanged.
 *
 * Writes to one run are serialised by locking its row, which makes group assignment deterministic: a sample joins
 * the group of its (step, split, group key), created on first sight with the next index in the step.
 */
import { createHash } from "node:crypto";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import type { ConversationMessage } from "../../lib/conversation";
import {
  externalRunInput,
  finishInput,
  groupKeyOf,
  stepsInput,
  trajectoriesInput,
  type ExternalRunInput,
  type ParsedTrajectory,
} from "../../lib/ingest";
import { findSecretLikeValues } from "../../lib/run-config";
import { storable } from "../../lib/storable";
import { insertJsonRows } from "../../db/bulk-insert";
import { refreshMetricRollups } from "../../db/metric-rollups";
import { AppError, notFound } from "../errors";
import { INTERNAL_SOURCE, runPath } from "./run-lifecycle";

export async function createExternalRun(db: PrismaClient, raw: ExternalRunInput, launchedByName?: string) {
  const input = externalRunInput.parse(raw);
  const secrets = findSecretLikeValues(input.config);
  if (secrets.length) {
    throw new AppError(
      "BAD_REQUEST",
      `config.${secrets[0]} looks like a secret (an API key or password); remove it: secrets are never stored.`,
      `config.${secrets[0]}`,
    );
  }
  const run = await db.run.create({
    data: {
      name: input.name,
      source: input.source,
      status: "running",
      startedAt: new Date(),
      config: storable(input.config) as Prisma.InputJsonValue,
      environment: input.environment,
      policyModel: input.policyModel,
      seed: 0,
      totalSteps: input.totalSteps ?? 0,
      tags: input.tags,
      launchedBy: "import",
      launchedByName: launchedByName ?? null,
    },
    select: { id: true, status: true },
  });
  return { id: run.id, url: runPath(run.id), status: run.status };
}

/** Locks an external run's row for the rest of the transaction; refuses internal runs and finished ones. */
async function lockExternalRun(tx: Prisma.TransactionClient, runId: string, allowFinished = false) {
  const rows = await tx.$queryRaw<{ source: string; status: string }[]>`
    SELECT source, status::text AS status FROM "Run" WHERE id = ${runId} FOR UPDATE`;
  const run = rows[0];
  if (!run) throw notFound("Run", runId);
  if (run.source === INTERNAL_SOURCE) {
    throw new AppError(
      "CONFLICT",
      `Run "${runId}" is trained by Rollout Lab's own workers; only runs created through the ingest API accept data.`,
      "runId",
    );
  }
  if (!allowFinished && run.status !== "running") {
    throw new AppError("CONFLICT", `Run "${runId}" is already ${run.status}; create a new run to send more data.`, "runId");
  }
  return run;
}

export async function appendSteps(db: PrismaClient, raw: unknown) {
  const input = stepsInput.parse(raw);
  return db.$transaction(async (tx) => {
    await lockExternalRun(tx, input.runId);
    const rows = input.steps.flatMap((s) =>
      Object.entries(s.metrics).map(([key, value]) => ({ runId: input.runId, key, step: s.step, value })),
    );
    for (const r of rows) {
      await tx.$executeRaw`
        INSERT INTO "MetricPoint" ("runId", "key", "step", "value") VALUES (${r.runId}, ${r.key}, ${r.step}, ${r.value})
        ON CONFLICT ("runId", "key", "step") DO UPDATE SET "value" = EXCLUDED."value"`;
    }
    for (const step of new Set(input.steps.map((s) => s.step))) await refreshMetricRollups(tx, input.runId, step);
    const last = input.steps.reduce((a, b) => (b.step >= a.step ? b : a));
    const lastReward = last.metrics["reward/mean"];
    const stepsDone = Math.max(...input.steps.map((s) => s.step + 1));
    // `step` only grows (a late batch of old steps must not move it back); planned steps are at least those seen.
    await tx.$executeRaw`UPDATE "Run" SET step = GREATEST(step, ${stepsDone}), "totalSteps" = GREATEST("totalSteps", ${stepsDone}),
      "latestReward" = CASE WHEN ${stepsDone} >= step THEN COALESCE(${lastReward ?? null}::double precision, "latestReward") ELSE "latestReward" END, "updatedAt" = now() AT TIME ZONE 'UTC'
      WHERE id = ${input.runId}`;
    return { runId: input.runId, points: rows.length };
  });
}

/** A stable row id for the sender's sample id, so a retried batch finds what it already stored. */
export function externalTrajectoryId(runId: string, senderId: string): string {
  return `x${createHash("sha256").update(`${runId}\0${senderId}`).digest("hex").slice(0, 24)}`;
}

function conversationOf(t: ParsedTrajectory): ConversationMessage[] {
  let turn = 0;
  let seenPolicy = false;
  return t.conversation.map((m) => {
    const source =
      m.source ?? (m.role === "assistant" ? "policy" : m.role === "tool" ? "tool" : m.role === "system" ? "system" : "user_simulator");
    // Observations belong to the policy turn that answers them: the turn advances after each policy message.
    if (source === "policy" && seenPolicy && m.turn === undefined) turn++;
    if (source === "policy") seenPolicy = true;
    return { ...m, source, turn: m.turn ?? turn };
  });
}

function statusOf(t: ParsedTrajectory): "ok" | "unscored" | "error" {
  if (t.error) return "error";
  return t.reward === null ? "unscored" : "ok";
}

export async function appendTrajectories(db: PrismaClient, raw: unknown) {
  const input = trajectoriesInput.parse(raw);
  const ids = input.trajectories.map((t) => externalTrajectoryId(input.runId, t.id));
  const duplicateInBatch = ids.findIndex((id, i) => ids.indexOf(id) !== i);
  if (duplicateInBatch >= 0) {
    throw new AppError(
      "BAD_REQUEST",
      `trajectories.${duplicateInBatch}.id "${input.trajectories[duplicateInBatch].id}" appears twice in this batch; ids must be unique.`,
      `trajectories.${duplicateInBatch}.id`,
    );
  }
  return db.$transaction(
    async (tx) => {
      await lockExternalRun(tx, input.runId);
      const existing = new Set((await tx.trajectory.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((r) => r.id));
      const fresh = input.trajectories.map((t, i) => ({ t, id: ids[i] })).filter(({ id }) => !existing.has(id));
      const touchedGroups = new Set<string>();
      const trajectoryRows: Record<string, unknown>[] = [];
      const callRows: Record<string, unknown>[] = [];
      const nowIso = new Date().toISOString();
      for (const { t, id } of fresh) {
        const groupId = await findOrCreateGroup(tx, input.runId, t);
        touchedGroups.add(groupId);
        const indexInGroup =
          (await tx.trajectory.count({ where: { groupId } })) + trajectoryRows.filter((r) => r.groupId === groupId).length;
        const conversation = conversationOf(t);
        trajectoryRows.push({
          id,
          groupId,
          runId: input.runId,
          step: t.step,
          split: t.split,
          taskId: t.taskId ?? groupKeyOf(t),
          indexInGroup,
          reward: t.reward,
          rewardComponents: t.rewardComponents,
          advantage: t.advantage,
          reasoning: t.reasoning,
          status: statusOf(t),
          endReason: t.endReason,
          error: t.error,
          numTurns: conversation.filter((m) => m.source === "policy").length,
          promptTokens: t.promptTokens,
          responseTokens: t.responseTokens,
          conversation,
          finalState: null,
          expectedState: null,
          createdAt: nowIso,
        });
        t.llmCalls.forEach((c, k) =>
          callRows.push({
            id: `${id}-${k}`,
            runId: input.runId,
            trajectoryId: id,
            turn: c.turn,
            role: c.role,
            model: c.model,
            endpoint: c.endpoint,
            request: { messages: c.messages, params: {} },
            response: c.response === null ? null : { text: c.response },
            latencyMs: c.latencyMs,
            promptTokens: c.promptTokens,
            completionTokens: c.completionTokens,
            costUsd: c.costUsd,
            attempt: 1,
            error: c.error,
            cached: false,
            startedAt: c.startedAt ?? nowIso,
          }),
        );
      }
      await insertJsonRows(tx, "Trajectory", trajectoryRows);
      await insertJsonRows(tx, "LlmCall", callRows);
      for (const groupId of touchedGroups) await refreshGroupStats(tx, groupId);
      return { runId: input.runId, stored: fresh.length, skipped: input.trajectories.length - fresh.length };
    },
    { timeout: 30_000 },
  );
}

async function findOrCreateGroup(tx: Prisma.TransactionClient, runId: string, t: ParsedTrajectory): Promise<string> {
  const key = groupKeyOf(t);
  const found = await tx.group.findFirst({ where: { runId, step: t.step, split: t.split, taskId: key }, select: { id: true } });
  if (found) return found.id;
  const indexInStep = await tx.group.count({ where: { runId, step: t.step, split: t.split } });
  const created = await tx.group.create({
    data: {
      runId,
      step: t.step,
      split: t.split,
      indexInStep,
      taskId: key,
      task: t.task ? (storable(t.task) as Prisma.InputJsonValue) : undefined,
    },
    select: { id: true },
  });
  return created.id;
}

/** Mean and population std of the group's scored rewards (GRPO's statistics; unscored samples left out). */
async function refreshGroupStats(tx: Prisma.TransactionClient, groupId: string) {
  const rewards = (await tx.trajectory.findMany({ where: { groupId, reward: { not: null } }, select: { reward: true } })).map(
    (r) => r.reward!,
  );
  const mean = rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null;
  const std = mean === null ? null : Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / rewards.length);
  await tx.group.update({ where: { id: groupId }, data: { rewardMean: mean, rewardStd: std } });
}

export async function finishExternalRun(db: PrismaClient, raw: unknown) {
  const input = finishInput.parse(raw);
  return db.$transaction(async (tx) => {
    const run = await lockExternalRun(tx, input.runId, true);
    if (run.status !== "running") return { id: input.runId, status: run.status, message: `The run was already ${run.status}.` };
    await tx.run.update({
      where: { id: input.runId },
      data: { status: input.status, finishedAt: new Date(), error: input.error ?? null, phase: null },
    });
    return { id: input.runId, status: input.status, message: `The run is ${input.status}.` };
  });
}
