/**
 * The parts of a RunConfig that make an evaluation run: who plays (an OpenAI-compatible endpoint, the built-in gold
 * replay, a training run's checkpoint, or the configured policy model as it is) and what is played (`eval`: every
 * selected task k times, nothing trained). Shared by the launch form, the API, the CLI and the trainer through
 * run-config.ts; the helpers below are what the web app shows about an evaluation without the trainer.
 */
import { z } from "zod";
import { INT4_MAX, INT4_MIN } from "./db-int";
import { endpointProblems, type EndpointProblem, type LlmEndpointPolicy } from "./llm-endpoint-policy";

const positiveInt = (max: number) => z.number().int().min(1).max(max);

/** USD per 1M tokens, as providers publish prices; without one a call is recorded at cost 0. */
export const llmPriceSchema = z
  .object({
    inputPerMTok: z.number().min(0).max(10_000).describe("USD per 1M prompt tokens."),
    outputPerMTok: z.number().min(0).max(10_000).describe("USD per 1M completion tokens."),
  })
  .strict();

/** The model being evaluated, as τ²'s agent reaches it through litellm: the OpenAI chat API. */
export const policyEndpointSchema = z
  .object({
    baseUrl: z.url().describe("OpenAI-compatible base URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1 (vLLM)."),
    model: z.string().min(1).max(200).describe("Model name the endpoint serves."),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, "apiKeyEnv must be the NAME of an environment variable (e.g. OPENAI_API_KEY), not the key itself")
      .optional()
      .describe("Name of the environment variable holding the API key on the trainer host."),
    timeoutMs: positiveInt(600_000).default(120_000).describe("Per-attempt timeout of one policy call."),
    price: llmPriceSchema.optional().describe("What the endpoint charges, to count cost (and stop at eval.maxCostUsd)."),
  })
  .strict();

export const policySamplingSchema = z
  .object({
    temperature: z.number().min(0).max(2).default(0).describe("Sampling temperature of the endpoint (τ²'s agent default: 0)."),
    maxTokens: positiveInt(65_536).default(4096).describe("max_tokens of each policy call."),
    topP: z.number().gt(0).max(1).optional(),
    seed: z
      .number()
      .int()
      .min(INT4_MIN)
      .max(INT4_MAX)
      .optional()
      .describe("Sent as the API's seed (servers that honour it sample reproducibly)."),
  })
  .strict();

/** A checkpoint of a training run on this server (its policy section is copied from that run at creation). */
export const checkpointRefSchema = z
  .object({
    runId: z.string().min(1).max(64).describe("The training run whose checkpoint plays."),
    step: z
      .number()
      .int()
      .min(0)
      .max(10_000_000)
      .optional()
      .describe("Its checkpoint at this step (completed steps); omit for the latest (the final policy)."),
  })
  .strict();

export const SCRIPTED_POLICIES = ["gold"] as const;
export const SCRIPTED_POLICY_LABEL = "gold actions replayed (scripted, not a model)";

export const evalSchema = z
  .object({
    k: positiveInt(64).default(4).describe("Trials per task (τ²'s num_trials); pass^1 … pass^k are reported."),
    tasks: z
      .array(z.string().min(1).max(300))
      .min(1)
      .max(10_000)
      .optional()
      .describe("Task ids to play (default: every task of dataset.evalSplit, or every task when the environment has none in it)."),
    maxTasks: positiveInt(100_000).optional().describe("Play at most this many of the selected tasks (in the environment's order)."),
    maxCostUsd: z
      .number()
      .positive()
      .max(1_000_000)
      .optional()
      .describe("Stop the run once its LLM calls have cost this much (USD; needs a price on the priced endpoints)."),
    concurrency: positiveInt(256).default(4).describe("Episodes played at once."),
  })
  .strict();

export type EvalSection = z.output<typeof evalSchema>;

/** The fields of a RunConfig these rules read (the full type lives in run-config.ts, which imports this file). */
interface EvalConfigView {
  eval?: EvalSection;
  environment: string;
  environmentOptions: Record<string, unknown>;
  dataset: { path?: string; evalSplit: string };
  policy: {
    model: string;
    endpoint?: z.output<typeof policyEndpointSchema>;
    scripted?: (typeof SCRIPTED_POLICIES)[number];
    checkpoint?: z.output<typeof checkpointRefSchema>;
  };
  llm: Record<string, unknown>;
  curriculum: unknown[];
}

export function isEvaluation(config: { eval?: unknown }): boolean {
  return config.eval !== undefined && config.eval !== null;
}

/** Rules an evaluation adds to a RunConfig; each message names the field and what to do. */
export function refineEvalConfig(c: EvalConfigView, ctx: z.RefinementCtx): void {
  const sources = (["endpoint", "scripted", "checkpoint"] as const).filter((s) => c.policy[s] !== undefined);
  if (sources.length > 1) {
    ctx.addIssue({
      code: "custom",
      path: ["policy", sources[1]],
      message: `policy.${sources.join(" and policy.")} are different players; keep one.`,
    });
  }
  if (!c.eval) {
    for (const s of sources)
      ctx.addIssue({
        code: "custom",
        path: ["policy", s],
        message: `policy.${s} plays evaluation runs only (it is not trained): add an eval section, e.g. eval: {k: 4}, or remove policy.${s}.`,
      });
    return;
  }
  if (c.curriculum.length > 0) {
    ctx.addIssue({ code: "custom", path: ["curriculum"], message: "An evaluation trains nothing, so it has no curriculum; remove it." });
  }
  if (c.eval.maxCostUsd !== undefined && !hasPrice(c)) {
    ctx.addIssue({
      code: "custom",
      path: ["eval", "maxCostUsd"],
      message:
        "eval.maxCostUsd needs prices to count cost: set policy.endpoint.price (USD per 1M input / output tokens), or a price on an llm endpoint; without one every call costs 0 and the ceiling never stops the run.",
    });
  }
  const tasks = c.eval.tasks ?? [];
  const duplicate = tasks.find((t, i) => tasks.indexOf(t) !== i);
  if (duplicate)
    ctx.addIssue({ code: "custom", path: ["eval", "tasks"], message: `Task "${duplicate}" is listed twice; list each task once.` });
}

function hasPrice(c: EvalConfigView): boolean {
  if (c.policy.endpoint?.price) return true;
  return Object.values(c.llm).some((ep) => typeof ep === "object" && ep !== null && "price" in ep && (ep as { price?: unknown }).price);
}

/** Who played, in one line (runs list, leaderboards): the endpoint's model, a checkpoint, the gold replay, or the model. */
export function policyLabel(c: Pick<EvalConfigView, "policy">): string {
  if (c.policy.endpoint) return `${c.policy.endpoint.model} @ ${hostOf(c.policy.endpoint.baseUrl)}`;
  if (c.policy.scripted) return SCRIPTED_POLICY_LABEL;
  if (c.policy.checkpoint)
    return `${c.policy.model} · checkpoint ${c.policy.checkpoint.step ?? "latest"} of run ${c.policy.checkpoint.runId}`;
  return c.policy.model;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * What makes two evaluations comparable: the environment with its options and dataset, the selected tasks and k.
 * Evaluations with the same key sit in one leaderboard on the environment's page.
 */
export function evalTaskSet(c: EvalConfigView): { key: string; label: string; k: number } | null {
  if (!c.eval) return null;
  const parts = {
    environment: c.environment,
    options: sortKeys(c.environmentOptions),
    dataset: c.dataset.path ?? null,
    split: c.eval.tasks ? null : c.dataset.evalSplit,
    tasks: c.eval.tasks ? [...c.eval.tasks].sort() : null,
    maxTasks: c.eval.maxTasks ?? null,
  };
  const what = c.eval.tasks
    ? `${c.eval.tasks.length} chosen task${c.eval.tasks.length === 1 ? "" : "s"}`
    : // Before a worker has selected them (the selected tasks' own label replaces this): true whatever the split holds.
      `${c.eval.maxTasks ? `first ${c.eval.maxTasks} tasks` : "all tasks"} of split "${c.dataset.evalSplit}" (of every task if none is in it)`;
  const options = Object.keys(c.environmentOptions).length ? ` · options ${JSON.stringify(parts.options)}` : "";
  return {
    key: JSON.stringify(parts),
    label: `${c.dataset.path ?? "built-in tasks"} · ${what}${options}`,
    k: c.eval.k,
  };
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, sortKeys(x)]),
    );
  return v;
}

/** policy.endpoint under the rules of every LLM endpoint (lib/llm-endpoint-policy.ts): allowed URLs, key variables. */
export function policyEndpointProblems(
  endpoint: { baseUrl: string; apiKeyEnv?: string } | undefined,
  policy: LlmEndpointPolicy,
): EndpointProblem[] {
  return endpoint ? endpointProblems(endpoint, ["policy", "endpoint"], policy) : [];
}
