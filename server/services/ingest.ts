/**
 * Runs trained elsewhere, streamed or imported (lib/ingest.ts has the input shapes). An external run is a Run row
 * with `source` naming its trainer; workers never claim it (trainer/worker/lease.ts). Its steps and samples land in
 * the same tables as internal runs, so every page and the re-scoring jobs work on it unchanged.
 *
 * Writes to one run are serialised by locking its row, which makes group assignment deterministic. A client
 * reattaches to its run by id (resume) or by its own run key (create with runKey + resume), as a restarted trainer
 * does with wandb.init(id=…, resume=…); a run that went silent (ingest-staleness.ts) runs again when data comes.
 */
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import {
  externalRunInput,
  finishInput,
  historyInput,
  resumeInput,
  runKeyInput,
  stepsInput,
  trajectoriesInput,
  trajectoryInput,
  unknownFields,
  type ExternalRunInput,
  type ParsedTrajectory,
} from "../../lib/ingest";
import { findSecretLikeValues } from "../../lib/run-config";
import { storable } from "../../lib/storable";
import { upsertMetricPoints } from "../../db/metric-points";
import { AppError, notFound } from "../errors";
import { INTERNAL_SOURCE, runPath } from "./run-lifecycle";
import { upsertExternalSamples, type SampleCounts } from "./ingest-samples";
import { markSilentExternalRuns } from "./ingest-staleness";

/** A whole 1,000-step history is one transaction: room for it on a loaded machine, bounded all the same. */
const WRITE_TRANSACTION = { timeout: 120_000, maxWait: 10_000 };

const RUN_FIELDS = Object.keys(externalRunInput.shape);
const SAMPLE_FIELDS = Object.keys(trajectoryInput.shape);

type RunRow = { id: string; status: string; step: number; source: string; createdAt: Date };

function attached(run: RunRow, resumed: boolean, ignoredFields: string[] = []) {
  return {
    id: run.id,
    url: runPath(run.id),
    status: run.status,
    resumed,
    step: run.step,
    ...(ignoredFields.length ? { ignoredFields } : {}),
  };
}

export async function createExternalRun(db: PrismaClient, raw: ExternalRunInput, launchedByName?: string) {
  const input = externalRunInput.parse(raw);
  const ignoredFields = unknownFields([input], RUN_FIELDS);
  const secrets = findSecretLikeValues(input.config);
  if (secrets.length) {
    throw new AppError(
      "BAD_REQUEST",
      `config.${secrets[0]} looks like a secret (an API key or password); remove it: secrets are never stored.`,
      `config.${secrets[0]}`,
    );
  }
  if (input.resume !== "never" && !input.runKey) {
    throw new AppError(
      "BAD_REQUEST",
      `resume: "${input.resume}" needs a runKey (your own key for the run); to reattach by id, POST /external-runs/{id}/resume.`,
      "runKey",
    );
  }
  if (input.runKey) {
    const existing = await db.run.findUnique({ where: { runKey: input.runKey }, select: { id: true } });
    if (existing) return reattachByKey(db, existing.id, input, ignoredFields);
    if (input.resume === "must")
      throw new AppError("NOT_FOUND", `No run has runKey "${input.runKey}"; send resume: "allow" to create it.`, "runKey");
  }
  try {
    const run = await db.run.create({
      data: {
        name: input.name,
        source: input.source,
        status: "running",
        startedAt: new Date(),
        lastDataAt: new Date(),
        runKey: input.runKey ?? null,
        staleAfterSeconds: input.staleAfterSeconds ?? null,
        onStale: input.onStale,
        config: storable(input.config) as Prisma.InputJsonValue,
        environment: input.environment,
        policyModel: input.policyModel,
        seed: 0,
        totalSteps: input.totalSteps ?? 0,
        tags: input.tags,
        launchedBy: "import",
        launchedByName: launchedByName ?? null,
      },
      select: { id: true, status: true, step: true, source: true, createdAt: true },
    });
    return attached(run, false, ignoredFields);
  } catch (error) {
    // Two trainers created the same key at once: the loser reattaches (or is refused) like a later caller.
    const existing = input.runKey && (await db.run.findUnique({ where: { runKey: input.runKey }, select: { id: true } }));
    if (existing) return reattachByKey(db, existing.id, input, ignoredFields);
    throw error;
  }
}

async function reattachByKey(db: PrismaClient, id: string, input: ReturnType<typeof externalRunInput.parse>, ignored: string[]) {
  if (input.resume === "never") {
    const run = await db.run.findUniqueOrThrow({ where: { id }, select: { status: true, createdAt: true } });
    throw new AppError(
      "CONFLICT",
      `runKey "${input.runKey}" is already run ${id} (${run.status}, created ${run.createdAt.toISOString()}); send resume: "allow" to continue it, or use another runKey.`,
      "runKey",
    );
  }
  return reopen(db, id, ignored);
}

async function reopen(db: PrismaClient, id: string, ignored: string[] = []) {
  return db.$transaction(async (tx) => {
    const run = await lockExternalRun(tx, id, { reopen: true });
    return attached(run, true, ignored);
  });
}

/** POST /external-runs/{id}/resume: a restarted trainer continues its run (stale, failed, cancelled or finished). */
export async function resumeExternalRun(db: PrismaClient, raw: unknown) {
  const input = resumeInput.parse(raw);
  return reopen(db, input.runId);
}

/** The run holding a client's run key (an import's content key tells whether these files came in before). */
export async function findExternalRunByKey(db: PrismaClient, raw: unknown) {
  const input = runKeyInput.parse(raw);
  await markSilentExternalRuns(db);
  const run = await db.run.findUnique({
    where: { runKey: input.runKey },
    select: { id: true, name: true, status: true, step: true, source: true, createdAt: true, finishedAt: true, error: true },
  });
  if (!run) throw new AppError("NOT_FOUND", `No run has runKey "${input.runKey}".`, "runKey");
  return { ...attached(run, false), name: run.name, createdAt: run.createdAt, finishedAt: run.finishedAt, error: run.error };
}

/**
 * Locks an external run's row for the rest of the transaction and records that its client is alive. A stale run
 * runs again; a finished one accepts data only when reopened (resume).
 */
async function lockExternalRun(tx: Prisma.TransactionClient, runId: string, opts: { reopen?: boolean; finishing?: boolean } = {}) {
  await markSilentExternalRuns(tx);
  const rows = await tx.$queryRaw<(RunRow & { engine: string | null })[]>`
    SELECT id, source, status::text AS status, step, "createdAt", config->'execution'->>'engine' AS engine
    FROM "Run" WHERE id = ${runId} FOR UPDATE`;
  const found = rows[0];
  if (!found) throw notFound("Run", runId);
  const { engine, ...run } = found;
  // A run trained by an outside engine (execution.engine) is Rollout Lab's own run: the engine's logger writes
  // into it while the launcher supervises the process, and only the launcher settles its status.
  if (run.source === INTERNAL_SOURCE && engine && engine !== "builtin") {
    if (opts.finishing || run.status !== "running")
      throw new AppError(
        "CONFLICT",
        `Run "${runId}" is trained by ${engine} under Rollout Lab's launcher, which sets its status from the engine's exit code; steps and samples are accepted while it runs (it is ${run.status}).`,
        "runId",
      );
    await tx.$executeRaw`UPDATE "Run" SET "lastDataAt" = now() AT TIME ZONE 'UTC' WHERE id = ${runId}`;
    return run;
  }
  if (run.source === INTERNAL_SOURCE) {
    throw new AppError(
      "CONFLICT",
      `Run "${runId}" is trained by Rollout Lab's own workers; only runs created through the ingest API accept data.`,
      "runId",
    );
  }
  if (opts.finishing) return run;
  if (run.status !== "running" && run.status !== "stale" && !opts.reopen) {
    throw new AppError(
      "CONFLICT",
      `Run "${runId}" is already ${run.status}; resume it (POST /external-runs/${runId}/resume) to send more, or create a new run.`,
      "runId",
    );
  }
  await tx.$executeRaw`UPDATE "Run" SET status = 'running', error = NULL, "finishedAt" = NULL,
    "lastDataAt" = now() AT TIME ZONE 'UTC', "updatedAt" = now() AT TIME ZONE 'UTC' WHERE id = ${runId}`;
  return { ...run, status: "running" };
}

async function writeSteps(tx: Prisma.TransactionClient, runId: string, steps: { step: number; metrics: Record<string, number> }[]) {
  const points = steps.flatMap((s) => Object.entries(s.metrics).map(([key, value]) => ({ key, step: s.step, value })));
  const written = await upsertMetricPoints(tx, runId, points);
  const last = steps.reduce((a, b) => (b.step >= a.step ? b : a));
  const lastReward = last.metrics["reward/mean"];
  const stepsDone = Math.max(...steps.map((s) => s.step + 1));
  // `step` only grows (a late batch of old steps must not move it back); planned steps are at least those seen.
  await tx.$executeRaw`UPDATE "Run" SET step = GREATEST(step, ${stepsDone}), "totalSteps" = GREATEST("totalSteps", ${stepsDone}),
      "latestReward" = CASE WHEN ${stepsDone} >= step THEN COALESCE(${lastReward ?? null}::double precision, "latestReward") ELSE "latestReward" END
      WHERE id = ${runId}`;
  return written;
}

function assertUniqueIds(samples: { id: string }[]) {
  const seen = new Set<string>();
  samples.forEach((t, i) => {
    if (seen.has(t.id))
      throw new AppError(
        "BAD_REQUEST",
        `trajectories.${i}.id "${t.id}" appears twice in this batch; ids must be unique.`,
        `trajectories.${i}.id`,
      );
    seen.add(t.id);
  });
}

function sampleResult(runId: string, counts: SampleCounts, ignoredFields: string[]) {
  // `skipped` is what clients before upserts read: the samples that were already there unchanged.
  return { runId, ...counts, skipped: counts.unchanged, ...(ignoredFields.length ? { ignoredFields } : {}) };
}

export async function appendSteps(db: PrismaClient, raw: unknown) {
  const input = stepsInput.parse(raw);
  return db.$transaction(async (tx) => {
    await lockExternalRun(tx, input.runId);
    return { runId: input.runId, points: await writeSteps(tx, input.runId, input.steps) };
  }, WRITE_TRANSACTION);
}

export async function appendTrajectories(db: PrismaClient, raw: unknown) {
  const input = trajectoriesInput.parse(raw);
  assertUniqueIds(input.trajectories);
  const ignored = unknownFields(input.trajectories, SAMPLE_FIELDS);
  return db.$transaction(async (tx) => {
    await lockExternalRun(tx, input.runId);
    return sampleResult(input.runId, await upsertExternalSamples(tx, input.runId, input.trajectories), ignored);
  }, WRITE_TRANSACTION);
}

/** POST /external-runs/{id}/batch: a whole history (steps and their samples) in one request and one transaction. */
export async function appendHistory(db: PrismaClient, raw: unknown) {
  const input = historyInput.parse(raw);
  const samples: ParsedTrajectory[] = input.trajectories ?? [];
  assertUniqueIds(samples);
  const ignored = unknownFields(samples, SAMPLE_FIELDS);
  return db.$transaction(async (tx) => {
    await lockExternalRun(tx, input.runId);
    const points = input.steps?.length ? await writeSteps(tx, input.runId, input.steps) : 0;
    const counts = samples.length ? await upsertExternalSamples(tx, input.runId, samples) : { stored: 0, updated: 0, unchanged: 0 };
    return { ...sampleResult(input.runId, counts, ignored), points };
  }, WRITE_TRANSACTION);
}

export async function finishExternalRun(db: PrismaClient, raw: unknown) {
  const input = finishInput.parse(raw);
  return db.$transaction(async (tx) => {
    const run = await lockExternalRun(tx, input.runId, { finishing: true });
    if (run.status !== "running" && run.status !== "stale")
      return { id: input.runId, status: run.status, message: `The run was already ${run.status}.` };
    await tx.run.update({
      where: { id: input.runId },
      data: { status: input.status, finishedAt: new Date(), error: input.error ?? null, phase: null, lastDataAt: new Date() },
    });
    return { id: input.runId, status: input.status, message: `The run is ${input.status}.` };
  });
}
