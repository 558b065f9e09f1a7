/**
 * The ingest API's input: runs trained by another system (verl, SkyRL, TRL, ART, Simia-RL, τ²-bench, …) streamed or
 * imported into Rollout Lab so its pages (curves, browser, inspector, groups, compare, re-scoring, signals) work on
 * them too. Shared by the tRPC router, the REST API, the CLI importers and the TS logging client.
 *
 * Retries are safe: metrics are keyed by (key, step) and overwrite; samples carry the sender's own id, and a sample
 * re-sent under that id is left alone when unchanged and rewritten when its content changed (an upsert). Batches are
 * bounded so a server never holds an unbounded request: 1,000 steps or 200 samples within 1 MiB on the per-kind
 * routes, a whole 1,000-step history with its samples within 32 MiB on the batch route.
 *
 * Newer clients may send fields this server does not know: a message keeps them (OpenAI's `reasoning_content`, …)
 * and accepts role "developer" (stored as system); a sample or run ignores them and the response names them.
 */
import { z } from "zod";
import { int4Count } from "./db-int";

export const EXTERNAL_SOURCES = ["verl", "skyrl", "trl", "art", "simia", "tau2", "other"] as const;
export type ExternalSource = (typeof EXTERNAL_SOURCES)[number];

export const MAX_STEPS_PER_BATCH = 1000;
export const MAX_TRAJECTORIES_PER_BATCH = 200;
/** The batch route: a 1,000-step history with 16 samples a step fits, with room to spare. */
export const MAX_TRAJECTORIES_PER_HISTORY = 20_000;
export const MAX_HISTORY_BODY_BYTES = 32 * 1024 * 1024;
export const MAX_STEP = 10_000_000;
/** Silence after which an external run is stale unless it says otherwise (ROLLOUT_LAB_STALE_AFTER_S overrides). */
export const DEFAULT_STALE_AFTER_SECONDS = 1800;

const runId = z.string().min(1).max(64).describe("The external run's id (from create).");
const step = z.number().int().min(0).max(MAX_STEP);
const finite = z.number().refine(Number.isFinite, "must be a finite number");

export const externalRunInput = z
  .object({
    name: z.string().min(1).max(200),
    source: z.enum(EXTERNAL_SOURCES).describe("The system that trained the run."),
    environment: z.string().min(1).max(100).default("external").describe("Environment or task family, for filters."),
    policyModel: z.string().min(1).max(200).default("unknown").describe("The policy model's name."),
    config: z.record(z.string(), z.unknown()).default({}).describe("The trainer's own config, free JSON (shown as is; never secrets)."),
    tags: z.array(z.string().min(1).max(60)).max(20).default([]),
    totalSteps: z.number().int().min(0).max(MAX_STEP).optional().describe("Planned steps, for the progress bar."),
    runKey: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("Your own stable key for the run (an experiment name). With `resume`, a restarted trainer reattaches to it."),
    resume: z
      .enum(["never", "allow", "must"])
      .default("never")
      .describe(
        'With runKey: "never" refuses a key already used (409), "allow" reattaches to its run or creates one, "must" reattaches or 404s.',
      ),
    staleAfterSeconds: z
      .number()
      .int()
      .min(1)
      .max(30 * 86_400)
      .optional()
      .describe("Silence after which the run is marked stale (default 1,800 s, or the server's ROLLOUT_LAB_STALE_AFTER_S)."),
    onStale: z
      .enum(["stale", "fail"])
      .default("stale")
      .describe('"stale": shown as stale, running again when data comes; "fail": failed with the reason (an import that stopped).'),
  })
  .loose();
export type ExternalRunInput = z.input<typeof externalRunInput>;

/** GET /external-runs/by-key/{runKey}: the run a client key (or an import's content key) belongs to. */
export const runKeyInput = z.object({ runKey: z.string().min(1).max(200) }).strict();
export const resumeInput = z.object({ runId }).strict();

export const stepsInput = z
  .object({
    runId,
    steps: z
      .array(
        z
          .object({
            step,
            metrics: z.record(z.string().min(1).max(200), finite).describe('Metric key → value, e.g. {"reward/mean": 0.4}.'),
          })
          .strict(),
      )
      .min(1)
      .max(MAX_STEPS_PER_BATCH),
  })
  .strict();
export type StepsInput = z.input<typeof stepsInput>;

const toolCall = z.looseObject({
  id: z.string().max(200).default(""),
  name: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).default({}),
});

/** Text, or OpenAI's content parts (their text joined), or null (an assistant message that only calls tools). */
const messageContent = z
  .union([
    z.string().max(1_000_000),
    z.null(),
    z.array(z.looseObject({ type: z.string().max(40), text: z.string().max(1_000_000).optional() })).max(500),
  ])
  .transform((c) => (c === null ? "" : typeof c === "string" ? c : c.map((p) => p.text ?? "").join("")));

export const messageInput = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]).describe('"developer" (OpenAI) is stored as system.'),
  content: messageContent,
  source: z
    .enum(["system", "policy", "user_simulator", "tool", "tool_simulator", "environment"])
    .optional()
    .describe("Who produced it (default from the role: assistant → policy)."),
  turn: z.number().int().min(0).max(100_000).optional().describe("0-based policy turn (default: counted from the assistant messages)."),
  toolCalls: z.array(toolCall).max(100).optional(),
  toolCallId: z.string().max(200).optional(),
  name: z.string().max(200).optional(),
  turnReward: finite.optional(),
  advantage: finite.optional(),
});

export const llmCallInput = z
  .object({
    role: z
      .enum(["user_simulator", "tool_simulator", "judge", "policy"])
      .describe('"policy": a call to the trained or evaluated model itself, shown beside its message in the inspector.'),
    model: z.string().min(1).max(200),
    endpoint: z.string().max(500).default("external"),
    messages: z.array(z.looseObject({ role: z.string().max(40), content: messageContent })).max(500),
    response: z.string().max(1_000_000).nullable(),
    latencyMs: z.number().int().min(0).max(86_400_000).default(0),
    promptTokens: int4Count().default(0),
    completionTokens: int4Count().default(0),
    costUsd: z.number().min(0).default(0),
    error: z.string().max(10_000).nullable().default(null),
    turn: z
      .number()
      .int()
      .min(0)
      .max(100_000)
      .nullable()
      .default(null)
      .describe("0-based policy turn the call belongs to, as a message's turn."),
    startedAt: z.iso.datetime().optional(),
  })
  .strip();

export const trajectoryInput = z
  .object({
    id: z
      .string()
      .min(1)
      .max(300)
      .describe("The sender's id for this sample; re-sent unchanged it is skipped, re-sent changed it is updated."),
    step,
    split: z.enum(["train", "eval"]).default("train"),
    group: z
      .string()
      .min(1)
      .max(300)
      .optional()
      .describe("Samples of one GRPO group share this key (default: taskId, else the first user message)."),
    taskId: z.string().min(1).max(300).optional(),
    task: z.record(z.string(), z.unknown()).optional(),
    conversation: z.array(messageInput).min(1).max(2000),
    reward: finite.nullable().describe("null when the sample was not scored (never stored as 0)."),
    rewardComponents: z.record(z.string().min(1).max(100), finite).default({}),
    advantage: finite.nullable().default(null),
    reasoning: z.string().max(100_000).nullable().default(null),
    endReason: z.string().max(100).nullable().default(null),
    error: z.string().max(10_000).nullable().default(null),
    promptTokens: int4Count().default(0),
    responseTokens: int4Count().default(0),
    llmCalls: z.array(llmCallInput).max(200).default([]),
  })
  .loose();
/** A sample as this project's importers and clients write it: messages with text content (the API also takes OpenAI's content parts, or null). */
export type TrajectoryInput = z.input<typeof trajectoryInput> & { conversation: z.output<typeof messageInput>[] };
export type ParsedTrajectory = z.output<typeof trajectoryInput>;

export const trajectoriesInput = z
  .object({ runId, trajectories: z.array(trajectoryInput).min(1).max(MAX_TRAJECTORIES_PER_BATCH) })
  .strict();
export type TrajectoriesInput = z.input<typeof trajectoriesInput>;

/** A whole history in one request: steps' metrics and the samples of those steps (POST /external-runs/{id}/batch). */
export const historyInput = z
  .object({
    runId,
    steps: stepsInput.shape.steps.optional(),
    trajectories: z.array(trajectoryInput).min(1).max(MAX_TRAJECTORIES_PER_HISTORY).optional(),
  })
  .strict()
  .refine((b) => b.steps || b.trajectories, { message: "send steps, trajectories or both", path: ["steps"] });
export type HistoryInput = z.input<typeof historyInput>;

export const finishInput = z
  .object({ runId, status: z.enum(["succeeded", "failed", "cancelled"]).default("succeeded"), error: z.string().max(2000).optional() })
  .strict();

/** The key a sample's group is found by: explicit, else its task, else its first user message. */
export function groupKeyOf(t: Pick<ParsedTrajectory, "group" | "taskId" | "conversation">): string {
  if (t.group) return t.group;
  if (t.taskId) return t.taskId;
  const firstUser = t.conversation.find((m) => m.role === "user");
  return (firstUser?.content ?? t.conversation[0].content).slice(0, 300);
}

/** Top-level fields of a sample (or run) this server does not know: ignored, and named back to the sender. */
export function unknownFields(items: unknown[], known: readonly string[]): string[] {
  const names = new Set<string>();
  const knownSet = new Set(known);
  for (const item of items) if (item && typeof item === "object") for (const k of Object.keys(item)) if (!knownSet.has(k)) names.add(k);
  return [...names].sort();
}
