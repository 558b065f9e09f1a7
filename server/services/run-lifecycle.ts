/**
 * Run lifecycle: create (from a RunConfig), cancel, resume and clone, plus the status summary CI polls. The
 * trainer worker claims `queued` rows and honours `cancelRequested`, so every transition here is one conditional
 * UPDATE on the status it expects: a worker claiming or finishing the run at the same moment makes the update
 * miss, and we re-read and report the run's real state instead of overwriting it.
 */
import { getSlurmJobView } from "./slurm-jobs";
import os from "node:os";
import { ZodError } from "zod";
import type { PrismaClient } from "../../db/client";
import type { LaunchSource, Prisma, Run } from "../../generated/prisma/client";
import { checkLlmEndpoints, llmEndpointPolicyFromEnv, type LlmEndpointPolicy } from "../../lib/llm-endpoint-policy";
import { BUILTIN_MODEL_DIMS, BYTE_VOCAB_SIZE, type ModelDims } from "../../lib/model-sizes";
import { environmentOptionsIssues } from "../../lib/environment-options";
import { estimateStepMemory, stepMemoryInputOf, stepMemoryLimitBytes, stepMemoryProblem } from "../../lib/step-memory";
import { findSecretLikeValues, parseRunConfig, type RunConfig } from "../../lib/run-config";
import { isEvaluation, policyEndpointProblems, policyLabel } from "../../lib/eval-config";
import { AppError, notFound } from "../errors";
import { getMetricSeries, listMetricKeys } from "./metrics";
import { markSilentExternalRuns } from "./ingest-staleness";
import { INTERNAL_SOURCE } from "../../lib/run-status";
import { cleanRunNotes } from "../../lib/run-notes";

/** One field-level problem, as REST and tRPC callers see it. */
export interface InputIssue {
  path: string;
  message: string;
}

/** A 400 that carries every issue (not only the first), so a CI log shows all fixes needed at once. */
export class InvalidInputError extends AppError {
  constructor(
    message: string,
    readonly issues: InputIssue[],
  ) {
    super("BAD_REQUEST", message, issues[0]?.path);
  }
}

export function issuesFromZod(error: ZodError, prefix: string[] = []): InputIssue[] {
  return error.issues.map((i) => ({ path: [...prefix, ...i.path.map(String)].join(".") || "(root)", message: i.message }));
}

/**
 * Validate a submitted config with the shared schema. Secret-looking values are rejected before schema parsing so
 * that `llm.judge.apiKey: "sk-…"` is explained as "use apiKeyEnv" rather than as an unknown key.
 */
export function validateRunConfig(input: unknown, endpointPolicy: LlmEndpointPolicy = llmEndpointPolicyFromEnv()): RunConfig {
  const secrets = findSecretLikeValues(input);
  if (secrets.length > 0) {
    throw new InvalidInputError(
      `The config contains what looks like an API key at ${secrets.join(", ")}. Configs are stored and shown in the dashboard, so keys never go in them: ` +
        `put the key in an environment variable on the trainer host and name it with "apiKeyEnv" (e.g. llm.judge.apiKeyEnv: "OPENAI_API_KEY").`,
      secrets.map((path) => ({
        path: `config.${path}`,
        message: "looks like an API key; use apiKeyEnv with the name of an environment variable instead",
      })),
    );
  }
  let config: RunConfig;
  try {
    config = parseRunConfig(input);
  } catch (error) {
    if (error instanceof ZodError) {
      const issues = issuesFromZod(error, ["config"]);
      throw new InvalidInputError(`Invalid run config: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, issues);
    }
    throw error;
  }
  // Only operator-approved key variables, sent only to approved endpoints (the worker checks again before reading).
  const endpointProblems = [
    ...checkLlmEndpoints(config.llm, endpointPolicy),
    ...policyEndpointProblems(config.policy.endpoint, endpointPolicy),
  ];
  if (endpointProblems.length > 0) {
    const issues = endpointProblems.map((p) => ({ path: ["config", ...p.path].join("."), message: p.message }));
    throw new InvalidInputError(`Invalid run config: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, issues);
  }
  const optionIssues = optionsIssues(config);
  if (optionIssues.length > 0) {
    throw new InvalidInputError(`Invalid run config: ${optionIssues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, optionIssues);
  }
  const memory = builtinStepMemoryProblem(config);
  if (memory) throw new InvalidInputError(`Invalid run config: ${memory}`, [{ path: "config.grpo.microBatchSize", message: memory }]);
  return config;
}

/** The environment's own options, and each curriculum stage's over them, as the worker will parse them. */
function optionsIssues(config: RunConfig): InputIssue[] {
  const base = environmentOptionsIssues(config.environment, config.environmentOptions, ["config", "environmentOptions"]);
  if (base.length > 0) return base;
  return config.curriculum.flatMap((stage, i) =>
    stage.environmentOptions
      ? environmentOptionsIssues(config.environment, { ...config.environmentOptions, ...stage.environmentOptions }, [
          "config",
          "curriculum",
          String(i),
          "environmentOptions",
        ])
      : [],
  );
}

/** For built-in policy sizes the web knows the dimensions; checkpoint folders are checked by the worker. */
function builtinStepMemoryProblem(config: RunConfig): string | null {
  const size = (BUILTIN_MODEL_DIMS as Record<string, ModelDims>)[config.policy.model];
  if (!size || config.policy.tokenizer !== "byte") return null;
  const dims = { ...size, maxPositions: config.policy.contextLength ?? size.maxPositions };
  const input = stepMemoryInputOf(config, dims, BYTE_VOCAB_SIZE);
  return stepMemoryProblem(
    estimateStepMemory(input),
    stepMemoryLimitBytes(process.env, os.totalmem()),
    input.microBatch,
    dims.maxPositions,
  );
}

export interface LaunchInfo {
  launchedBy: LaunchSource;
  /** Token name or user label shown in the runs list. */
  launchedByName?: string | null;
}

export interface CreatedRun {
  id: string;
  /** Dashboard path of the run; the REST layer makes it absolute. */
  url: string;
  status: Run["status"];
}

export const runPath = (id: string) => `/runs/${id}`;

export { INTERNAL_SOURCE };

const externalRunRefusal = (id: string, source: string, what: string) =>
  new AppError(
    "CONFLICT",
    `Run "${id}" was trained by ${source} and imported; it cannot be ${what} here. Its client resumes it (POST /external-runs/${id}/resume) or finishes it through the ingest API.`,
  );

function rowFromConfig(config: RunConfig) {
  return {
    name: config.name,
    config: config as unknown as Prisma.InputJsonValue,
    environment: config.environment,
    policyModel: isEvaluation(config) ? policyLabel(config) : config.policy.model,
    seed: config.seed,
    // An evaluation records one step per task; the worker sets the count once it has selected them.
    totalSteps: config.eval ? (config.eval.tasks?.length ?? config.eval.maxTasks ?? 1) : config.grpo.steps,
    tags: config.tags,
  };
}

/**
 * An evaluation of a training run's checkpoint plays that run's policy: its model, tokenizer, context and LoRA are
 * taken from the run (whatever the submitted config says), and the checkpoint must exist now.
 */
async function withCheckpointPolicy(db: PrismaClient, config: RunConfig): Promise<RunConfig> {
  const ref = config.policy.checkpoint;
  if (!ref) return config;
  const field = (name: string) => `config.policy.checkpoint.${name}`;
  const source = await db.run.findUnique({ where: { id: ref.runId }, select: { config: true, source: true } });
  if (!source)
    throw new InvalidInputError(`No run "${ref.runId}" to take a checkpoint from.`, [{ path: field("runId"), message: "no such run" }]);
  if (source.source !== INTERNAL_SOURCE) {
    const message = `Run "${ref.runId}" was trained by ${source.source}; only checkpoints of runs trained here can be evaluated here.`;
    throw new InvalidInputError(message, [{ path: field("runId"), message }]);
  }
  const checkpoint = await db.checkpoint.findFirst({
    where: { runId: ref.runId, ...(ref.step !== undefined ? { step: ref.step } : {}) },
    orderBy: { step: "desc" },
    select: { step: true },
  });
  if (!checkpoint) {
    const steps = (await db.checkpoint.findMany({ where: { runId: ref.runId }, select: { step: true }, orderBy: { step: "asc" } })).map(
      (c) => c.step,
    );
    const message = steps.length
      ? `Run "${ref.runId}" has no checkpoint at step ${ref.step}; its checkpoints are at steps ${steps.join(", ")}.`
      : `Run "${ref.runId}" has no checkpoint yet.`;
    throw new InvalidInputError(message, [{ path: field(ref.step !== undefined ? "step" : "runId"), message }]);
  }
  let trained: RunConfig["policy"];
  try {
    trained = parseRunConfig(source.config).policy;
  } catch {
    const message = `Run "${ref.runId}"'s stored config no longer parses, so its policy cannot be rebuilt; clone it first.`;
    throw new InvalidInputError(message, [{ path: field("runId"), message }]);
  }
  return validateRunConfig({
    ...config,
    policy: {
      ...config.policy,
      model: trained.model,
      tokenizer: trained.tokenizer,
      contextLength: trained.contextLength,
      lora: trained.lora,
      // Pinned: "latest" means the latest when the evaluation was launched, so it stays reproducible.
      checkpoint: { runId: ref.runId, step: checkpoint.step },
    },
  });
}

export async function createRun(db: PrismaClient, input: { config: unknown; notes?: string } & LaunchInfo): Promise<CreatedRun> {
  const config = await withCheckpointPolicy(db, validateRunConfig(input.config));
  const run = await db.run.create({
    data: {
      ...rowFromConfig(config),
      // Beside the config, never in it: notes are metadata (lib/run-notes.ts).
      notes: cleanRunNotes(input.notes ?? ""),
      launchedBy: input.launchedBy,
      launchedByName: input.launchedByName ?? null,
    },
    select: { id: true, status: true },
  });
  return { id: run.id, url: runPath(run.id), status: run.status };
}

/** New queued run from another run's config; `overrides` are merged over it (top-level sections merge shallowly). */
export async function cloneRun(
  db: PrismaClient,
  input: { id: string; overrides?: Record<string, unknown> } & LaunchInfo,
): Promise<CreatedRun & { clonedFromId: string }> {
  const source = await db.run.findUnique({ where: { id: input.id }, select: { id: true, config: true, name: true, source: true } });
  if (!source) throw notFound("Run", input.id);
  if (source.source !== INTERNAL_SOURCE) throw externalRunRefusal(input.id, source.source, "cloned");
  const base = (source.config && typeof source.config === "object" && !Array.isArray(source.config) ? source.config : {}) as Record<
    string,
    unknown
  >;
  const merged: Record<string, unknown> = { ...base, name: `${source.name} (clone)` };
  for (const [key, value] of Object.entries(input.overrides ?? {})) {
    const prev = merged[key];
    const bothObjects = isPlainObject(prev) && isPlainObject(value);
    merged[key] = bothObjects ? { ...prev, ...value } : value;
  }
  const config = await withCheckpointPolicy(db, validateRunConfig(merged));
  const run = await db.run.create({
    data: { ...rowFromConfig(config), launchedBy: input.launchedBy, launchedByName: input.launchedByName ?? null, clonedFromId: source.id },
    select: { id: true, status: true },
  });
  return { id: run.id, url: runPath(run.id), status: run.status, clonedFromId: source.id };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export interface LifecycleResult {
  id: string;
  status: Run["status"];
  cancelRequested: boolean;
  /** What happened, in words a CI log can show. */
  message: string;
}

/**
 * Queued → cancelled at once (no worker holds it). Running → `cancelRequested`; the worker stops after the current
 * step, saves a checkpoint and marks the run cancelled. An external run (running or stale) has no worker to ask: it
 * is cancelled at once, and its client's further data is refused until the client resumes it. Cancelling a
 * cancelled run is a no-op; a finished run is a 409.
 */
export async function cancelRun(db: PrismaClient, id: string): Promise<LifecycleResult> {
  const queued = await db.run.updateMany({
    where: { id, status: "queued" },
    data: { status: "cancelled", finishedAt: new Date(), cancelRequested: false },
  });
  if (queued.count === 1) return { id, status: "cancelled", cancelRequested: false, message: "The queued run was cancelled." };
  const running = await db.run.updateMany({ where: { id, status: "running", source: INTERNAL_SOURCE }, data: { cancelRequested: true } });
  if (running.count === 1) {
    return {
      id,
      status: "running",
      cancelRequested: true,
      message: "Cancel requested; the worker stops after the current step and saves a checkpoint.",
    };
  }
  const external = await db.run.updateMany({
    where: { id, status: { in: ["running", "stale"] }, source: { not: INTERNAL_SOURCE } },
    data: { status: "cancelled", finishedAt: new Date(), phase: null },
  });
  if (external.count === 1) {
    return {
      id,
      status: "cancelled",
      cancelRequested: false,
      message: "The external run was cancelled; its client's further data is refused (409) unless the client resumes the run.",
    };
  }
  const run = await db.run.findUnique({ where: { id }, select: { status: true, cancelRequested: true, source: true } });
  if (!run) throw notFound("Run", id);
  if (run.status === "cancelled")
    return { id, status: run.status, cancelRequested: run.cancelRequested, message: "The run was already cancelled." };
  throw new AppError("CONFLICT", `Run "${id}" already ${run.status}; only queued or running runs can be cancelled.`);
}

/**
 * A cancelled or failed run goes back to the queue under the same id. Its metrics, trajectories and checkpoints
 * stay; the worker that claims it resumes from the last loadable checkpoint (trainer/loop resume).
 */
export async function resumeRun(db: PrismaClient, id: string): Promise<LifecycleResult> {
  const updated = await db.run.updateMany({
    where: { id, status: { in: ["cancelled", "failed"] }, source: INTERNAL_SOURCE },
    data: { status: "queued", cancelRequested: false, error: null, finishedAt: null, phase: null, workerId: null, leaseExpiresAt: null },
  });
  if (updated.count === 1)
    return { id, status: "queued", cancelRequested: false, message: "The run is queued again and resumes from its last checkpoint." };
  const run = await db.run.findUnique({ where: { id }, select: { status: true, source: true } });
  if (!run) throw notFound("Run", id);
  if (run.source !== INTERNAL_SOURCE) throw externalRunRefusal(id, run.source, "resumed");
  throw new AppError("CONFLICT", `Run "${id}" is ${run.status}; only cancelled or failed runs can be resumed.`);
}

/** What CI polls: status, progress, the latest value of every metric, the error if any. */
export async function getRunStatus(db: PrismaClient, id: string) {
  await markSilentExternalRuns(db);
  const run = await db.run.findUnique({ where: { id }, omit: { config: true } });
  if (!run) throw notFound("Run", id);
  // Keys from the rollups and each key's last point by an index probe: constant cost however long the run.
  const latest = await db.$queryRaw<{ key: string; step: number; value: number }[]>`
    SELECT k.key, p.step, p.value
    FROM (SELECT DISTINCT key FROM "MetricRollup" WHERE "runId" = ${id} AND "width" = 4096) k
    CROSS JOIN LATERAL (SELECT step, value FROM "MetricPoint" WHERE "runId" = ${id} AND key = k.key ORDER BY step DESC LIMIT 1) p
    ORDER BY k.key`;
  return {
    id: run.id,
    name: run.name,
    status: run.status,
    phase: run.phase,
    step: run.step,
    totalSteps: run.totalSteps,
    progress: run.totalSteps > 0 ? Math.min(1, run.step / run.totalSteps) : 0,
    latestReward: run.latestReward,
    latestMetrics: Object.fromEntries(latest.map((m) => [m.key, { step: m.step, value: m.value }])),
    error: run.error,
    cancelRequested: run.cancelRequested,
    environment: run.environment,
    policyModel: run.policyModel,
    seed: run.seed,
    tags: run.tags,
    notes: run.notes,
    launchedBy: run.launchedBy,
    launchedByName: run.launchedByName,
    clonedFromId: run.clonedFromId,
    backend: run.backend,
    slurm: await getSlurmJobView(db, run.id),
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    url: runPath(run.id),
  };
}

export async function listCheckpoints(db: PrismaClient, runId: string) {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true } });
  if (!run) throw notFound("Run", runId);
  const rows = await db.checkpoint.findMany({ where: { runId }, orderBy: { step: "asc" } });
  // sizeBytes is a BigInt column; JSON has no BigInt and checkpoint sizes stay far below 2^53.
  return {
    items: rows.map((c) => ({ id: c.id, step: c.step, location: c.location, sizeBytes: Number(c.sizeBytes), createdAt: c.createdAt })),
  };
}

/** Throws NOT_FOUND unless the run exists: REST reads of a run's children 404 on an unknown run instead of []. */
export async function assertRunExists(db: PrismaClient, id: string): Promise<void> {
  const run = await db.run.findUnique({ where: { id }, select: { id: true } });
  if (!run) throw notFound("Run", id);
}

/** Downsampled series (server/services/metrics.ts) of the given keys, or of every key the run has (first 50). */
export async function getRunMetricSeries(db: PrismaClient, input: { id: string; keys?: string[]; maxPoints: number }) {
  await assertRunExists(db, input.id);
  const keys = input.keys ?? (await listMetricKeys(db, input.id)).slice(0, 50);
  return { keys, series: await getMetricSeries(db, { runId: input.id, keys, maxPoints: input.maxPoints }) };
}
