/**
 * The ingest API's input: runs trained by another system (verl, SkyRL, TRL, ART, Simia-RL, τ²-bench, …) streamed or
 * imported into Rollout Lab so its pages (curves, browser, inspector, groups, compare, re-scoring, signals) work on
 * them too. Shared by the tRPC router, the REST API, the CLI importers and the TS logging client.
 *
 * Retries are safe: metrics are keyed by (key, step) and overwrite; trajectories carry the sender's own id and a
 * trajectory already stored under that id is skipped. Batches are bounded so one request stays well under the
 * API's 1 MiB body limit in the common case and a server never holds an unbounded batch.
 */
import { z } from "zod";

export const EXTERNAL_SOURCES = ["verl", "skyrl", "trl", "art", "simia", "tau2", "other"] as const;
export type ExternalSource = (typeof EXTERNAL_SOURCES)[number];

export const MAX_STEPS_PER_BATCH = 1000;
export const MAX_TRAJECTORIES_PER_BATCH = 200;
export const MAX_STEP = 10_000_000;

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
  })
  .strict();
export type ExternalRunInput = z.input<typeof externalRunInput>;

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

const toolCall = z
  .object({
    id: z.string().max(200).default(""),
    name: z.string().min(1).max(200),
    arguments: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

export const messageInput = z
  .object({
    role: z.enum(["system", "user", "assistant", "tool"]),
    content: z.string().max(1_000_000),
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
  })
  .strict();

export const llmCallInput = z
  .object({
    role: z.enum(["user_simulator", "tool_simulator", "judge"]),
    model: z.string().min(1).max(200),
    endpoint: z.string().max(500).default("external"),
    messages: z.array(z.object({ role: z.string().max(40), content: z.string().max(1_000_000) }).strict()).max(500),
    response: z.string().max(1_000_000).nullable(),
    latencyMs: z.number().int().min(0).max(86_400_000).default(0),
    promptTokens: z.number().int().min(0).default(0),
    completionTokens: z.number().int().min(0).default(0),
    costUsd: z.number().min(0).default(0),
    error: z.string().max(10_000).nullable().default(null),
    turn: z.number().int().min(0).nullable().default(null),
    startedAt: z.iso.datetime().optional(),
  })
  .strict();

export const trajectoryInput = z
  .object({
    id: z.string().min(1).max(300).describe("The sender's id for this sample; a retry with the same id is skipped."),
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
    promptTokens: z.number().int().min(0).default(0),
    responseTokens: z.number().int().min(0).default(0),
    llmCalls: z.array(llmCallInput).max(200).default([]),
  })
  .strict();
export type TrajectoryInput = z.input<typeof trajectoryInput>;
export type ParsedTrajectory = z.output<typeof trajectoryInput>;

export const trajectoriesInput = z
  .object({ runId, trajectories: z.array(trajectoryInput).min(1).max(MAX_TRAJECTORIES_PER_BATCH) })
  .strict();
export type TrajectoriesInput = z.input<typeof trajectoriesInput>;

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
