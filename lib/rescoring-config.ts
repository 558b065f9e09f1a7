/**
 * What a re-scoring job is asked to do, shared by the web app (which validates and stores it on the Rescoring row)
 * and the trainer (which re-parses it before executing): which groups, and which scorer. Like RunConfig, one zod
 * schema on both sides so a job the API accepted is a job the worker can run.
 *
 * Why groups and not single trajectories: the point of re-scoring is often "what would the GRPO advantages have
 * been" (NeMo Gym: "swap the verifier and recompute the reward"), and an advantage is only defined relative to the
 * whole group (DeepSeekMath §4.1.2).
 */
import { z } from "zod";

const stepNumber = z.number().int().min(0).max(10_000_000);

export const RescoringSelectionSchema = z
  .object({
    stepMin: stepNumber.optional().describe("First training step to re-score (inclusive)."),
    stepMax: stepNumber.optional().describe("Last training step to re-score (inclusive)."),
    groupId: z.string().min(1).max(64).optional().describe("Only this group."),
    taskId: z.string().min(1).max(200).optional().describe("Only groups of this task."),
    split: z.string().min(1).max(40).optional().describe('"train" or "eval"; both when omitted.'),
    maxTrajectories: z
      .number()
      .int()
      .min(1)
      .max(5000)
      .default(500)
      .describe("Stop adding groups once this many trajectories are selected."),
  })
  .strict()
  .refine((s) => s.stepMin === undefined || s.stepMax === undefined || s.stepMin <= s.stepMax, {
    message: "stepMin must not be greater than stepMax",
    path: ["stepMax"],
  });
export type RescoringSelection = z.infer<typeof RescoringSelectionSchema>;

/** A real OpenAI-compatible judge. The key is never stored: apiKeyEnv names the worker's environment variable. */
export const RescoringEndpointSchema = z
  .object({
    baseUrl: z.string().url().max(2000),
    model: z.string().min(1).max(200),
    apiKeyEnv: z
      .string()
      .max(200)
      .regex(/^[A-Z_][A-Z0-9_]*$/, "apiKeyEnv is the NAME of an environment variable (e.g. OPENAI_API_KEY), not the key")
      .optional(),
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: z.number().int().positive().max(32_000).optional(),
  })
  .strict();

/**
 * The built-in offline judge (no API key): a checklist over what the trajectory did. `threshold` is the share of
 * checklist items needed for reward 1 — 1 is strict, lower is lenient — so a test can make verdicts flip. `noise`
 * flips each judgement with that probability (seeded), to exercise the reliability figures without a real LLM.
 */
export const OfflineJudgeConfigSchema = z
  .object({
    threshold: z.number().min(0).max(1).default(1),
    argumentMatch: z.enum(["exact", "lenient"]).default("lenient"),
    noise: z.number().min(0).max(0.5).default(0),
  })
  .strict();

export const DEFAULT_RESCORE_JUDGE_PROMPT = `You are judging whether an agent accomplished the user's task. Judge only what the conversation shows.

Task / user goal: {{instruction}}

Agent policy: {{policy}}

Expected outcome: {{expected}}

Final state reached: {{final_state}}

Complete conversation:
{{history}}

Reply with only a JSON object: {"reasoning": "<what was and was not done>", "reward": 0 or 1, "components": {"<name>": <0..1>}}`;

export const JudgeScorerSchema = z
  .object({
    kind: z.literal("judge"),
    /** Template with {{instruction}}, {{policy}}, {{expected}}, {{final_state}}, {{history}}, {{task}}, {{system_prompt}}, {{transcript}} placeholders. */
    prompt: z.string().min(1).max(20_000).default(DEFAULT_RESCORE_JUDGE_PROMPT),
    /** Omit to use the offline judge. */
    endpoint: RescoringEndpointSchema.optional(),
    offline: OfflineJudgeConfigSchema.prefault({}),
    /** Judge each trajectory k times: agreement and variance across the k give the judge's noise floor. */
    samples: z.number().int().min(1).max(9).default(1),
    aggregate: z.enum(["mean", "majority"]).default("mean"),
    maxAttempts: z.number().int().min(1).max(5).default(2),
  })
  .strict();

/** A different programmatic reward: the stored components re-weighted (reward = Σ weight × component). */
export const WeightsScorerSchema = z
  .object({
    kind: z.literal("weights"),
    weights: z
      .record(z.string().min(1).max(100), z.number().min(-100).max(100))
      .refine((w) => Object.keys(w).length > 0, { message: 'give at least one component weight, e.g. {"goal": 1}' }),
  })
  .strict();

export const ScorerSchema = z.discriminatedUnion("kind", [JudgeScorerSchema, WeightsScorerSchema]);
export type Scorer = z.infer<typeof ScorerSchema>;
export type ScorerInput = z.input<typeof ScorerSchema>;
export type JudgeScorer = z.infer<typeof JudgeScorerSchema>;
export type WeightsScorer = z.infer<typeof WeightsScorerSchema>;

/** One judgement of a trajectory, as stored in TrajectoryScore.samples. */
export interface ScoreSample {
  reward: number | null;
  reasoning: string;
}

/** A short human label for a scorer (job lists, the comparison header). */
export function describeScorer(s: Scorer): string {
  if (s.kind === "weights")
    return `weights ${Object.entries(s.weights)
      .map(([k, w]) => `${k}×${w}`)
      .join(" + ")}`;
  const judge = s.endpoint
    ? `${s.endpoint.model} judge`
    : `offline judge (threshold ${s.offline.threshold}${s.offline.noise ? `, noise ${s.offline.noise}` : ""})`;
  return `${judge}${s.samples > 1 ? `, k=${s.samples}` : ""}${s.prompt === DEFAULT_RESCORE_JUDGE_PROMPT ? "" : ", custom prompt"}`;
}
