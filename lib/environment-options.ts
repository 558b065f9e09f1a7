/**
 * The `environmentOptions` schema of every environment, where both sides can see it: the web host validates a
 * run's options when it is created (unknown keys refused by name, not first in the worker), and each environment's
 * factory in trainer/envs parses its options with the same schema. The names here must be exactly the catalog's
 * (lib/environments.ts); a unit test checks it.
 */
import { z } from "zod";
import { DEFAULT_SIMULATED_PROMPTS, SimulatedPromptsSchema } from "./simulated-prompts";
import { TravelConfigSchema, UserRlConfigSchema } from "./userrl-options";

const TOOL_STYLES = ["hermes", "json", "bracket"] as const;

/** τ-bench's user strategies (tau2/user-prompts.ts holds their prompts). */
export type UserStrategy = "llm" | "react" | "verify" | "reflection";
export const USER_STRATEGIES: readonly UserStrategy[] = ["llm", "react", "verify", "reflection"];
/** τ²'s budget of policy turns per episode. */
export const TAU2_MAX_TURNS = 20;

/** The `tau2-retail` section of a run config. */
export const Tau2RetailConfigSchema = z
  .object({
    /** How the LLM customer is prompted (tau-bench user strategies). */
    userStrategy: z.enum(USER_STRATEGIES as [UserStrategy, ...UserStrategy[]]).default("llm"),
    /** How tools are described to the policy. */
    toolStyle: z.enum(TOOL_STYLES).default("hermes"),
    /** Upper bound on policy turns (the run's maxTurns also applies); τ²'s budget is 20. */
    maxTurns: z.number().int().min(1).max(200).default(TAU2_MAX_TURNS),
  })
  .strict();
export type Tau2RetailOptions = z.input<typeof Tau2RetailConfigSchema>;

/** The `guess-number` section of a run config (environmentOptions). One task per secret, so `max` is bounded. */
export const GuessEnvOptionsSchema = z
  .object({
    max: z.number().int().min(2).max(1000).default(8).describe("Numbers range over 1..max; one task per number."),
    turnPenalty: z.number().min(0).max(1).default(0.25).describe("Reward lost per extra turn when solved."),
  })
  .strict();
export type GuessEnvOptions = z.input<typeof GuessEnvOptionsSchema>;

/** The `bfcl` section of a run config. */
export const BfclConfigSchema = z
  .object({
    /**
     * EnvTuning's rewards (bfcl-reward.ts): "progress" = the share of user turns passed (bfcl_reward.py, stage 3);
     * "format" = is_tool_call × (format + tool-call success), 0..2 (format_reward.py, stages 1-2); "binary": 1 only
     * when every turn passes (BFCL accuracy).
     */
    rewardMode: z.enum(["progress", "format", "binary"]).default("progress"),
    /** "envtuning": EnvTuning's <think>/<tool_call>/<answer> messages, 5 attempts per turn; "bfcl": gorilla's loop. */
    protocol: z.enum(["envtuning", "bfcl"]).default("envtuning"),
    /**
     * Whose API classes run: "envtuning", EnvTuning's fork (an older BFCL's functions and behaviour, its actionable
     * messages); "bfcl", BFCL v4's, which v4's data and function docs describe. Default: the protocol's.
     */
    apis: z.enum(["envtuning", "bfcl"]).optional(),
    /** How functions are described to the policy under the "bfcl" protocol (EnvTuning's lists them as JSON). */
    toolStyle: z.enum(TOOL_STYLES).default("hermes"),
  })
  .strict();
export type BfclEnvironmentOptions = z.input<typeof BfclConfigSchema>;

/** The `sgd` section of a run config. */
export const SgdConfigSchema = z
  .object({
    /**
     * "turn_judge" (agent_gym's): each assistant turn judged on its own, the turn scores feeding turn-level credit,
     * the episode's reward their mean; "goal_blend": goal completion blended with an episode-level judge.
     */
    rewardMode: z.enum(["turn_judge", "goal_blend"]).default("turn_judge"),
    /** goal_blend: share of the judge's quality score in the reward (rest: goal completion). */
    judgeWeight: z.number().min(0).max(1).default(0.5),
    /** Real dialogues shown to an LLM user simulator. */
    fewShot: z.number().int().min(0).max(8).default(2),
    /**
     * A user prompt chosen by `rollout-lab sgd optimize-user` (user-prompt-search.ts): its style instruction and
     * few-shot count, with the artifact's name, replace the defaults above. The run config keeps the prompt itself.
     */
    userPrompt: z
      .object({ artifact: z.string().min(1), instruction: z.string().min(1).max(4000), fewShot: z.number().int().min(0).max(8) })
      .strict()
      .optional(),
    /** How tools are described to the policy. */
    toolStyle: z.enum(TOOL_STYLES).default("hermes"),
    /**
     * The tool mocker (tool-mocker.ts). `matching`: "agent_gym" (its exact → fuzzy ≥ 0.8 → LLM → fuzzy ≥ 0.5 → first
     * recording) or "tolerant" (parameter names checked, values compared in canonical form, searches answered by
     * filtering recorded rows, then the same fallbacks). `fuzzy`, `llmFallback`, `anyRecording` switch the fallbacks.
     */
    mocker: z
      .object({
        matching: z.enum(["agent_gym", "tolerant"]).default("agent_gym"),
        fuzzy: z.boolean().default(true),
        llmFallback: z.boolean().default(true),
        anyRecording: z.boolean().default(true),
      })
      .strict()
      .default({ matching: "agent_gym", fuzzy: true, llmFallback: true, anyRecording: true }),
  })
  .strict();
export type SgdEnvironmentOptions = z.input<typeof SgdConfigSchema>;

/** The `simulated` section of a run config. */
export const SimulatedEnvConfigSchema = z
  .object({
    /**
     * "simia": Simia-RL's single simulator playing user and tools, its opening and judge inputs (simia-episode.ts);
     * "split": a user simulator and a tool simulator over the task's structured data (episode.ts).
     */
    simulator: z.enum(["simia", "split"]).default("simia"),
    prompts: SimulatedPromptsSchema.default(DEFAULT_SIMULATED_PROMPTS),
    toolPromptStyle: z.enum(TOOL_STYLES).default("hermes"),
    /** Agent messages (simia) or simulator calls (split) per episode before it is judged; Simia-RL's max_simulation_steps. */
    maxSimSteps: z.number().int().positive().max(1000).default(25),
    judge: z
      .object({
        /** Share of the expected outcome the offline judge needs for reward 1: 1 is strict, lower is more lenient. */
        threshold: z.number().min(0).max(1).default(1),
        /** "exact": arguments must equal the expected ones; "lenient": case/whitespace-insensitive, extras allowed. */
        argumentMatch: z.enum(["exact", "lenient"]).default("lenient"),
        samples: z.number().int().min(1).max(9).default(1),
        maxAttempts: z.number().int().min(1).max(5).default(2),
        aggregate: z.enum(["mean", "majority"]).default("mean"),
        /**
         * A judgement that never parsed: "unscored" (reward null, left out of advantages — a broken judge must not
         * read as a bad policy) or "zero" (Simia-RL scores it 0). Strict mode only.
         */
        unparsable: z.enum(["unscored", "zero"]).default("unscored"),
        /**
         * "strict": our judge — a {"reasoning", "reward" 0..1} object, an unreadable reply retried with the problem
         * fed back, then unscored (or 0 with `unparsable: "zero"`). "simia": Simia-RL's — one call, its parse and its
         * score (trainer/judge/simia-judgement.ts), an unreadable reply 0, and Simia's sampling parameters
         * (`simiaSampling`) on the simulator's and the judge's requests; `samples`, `maxAttempts` and `unparsable` do
         * not apply. Unset: "simia" with Simia's own loop (`simulator: "simia"`), so the environment named after
         * Simia-RL scores as Simia-RL unless the user opts out; "strict" with the split simulators (ours).
         */
        mode: z.enum(["strict", "simia"]).optional(),
      })
      .strict()
      .default({
        threshold: 1,
        argumentMatch: "lenient",
        samples: 1,
        maxAttempts: 2,
        aggregate: "mean",
        unparsable: "unscored",
      }),
    /**
     * What Simia's mode sends with every simulator and judge request, in place of the endpoint's temperature and
     * max_tokens: Simia's SimulatedEnvConfig defaults. Lower max_completion_tokens for a server with a shorter context.
     */
    simiaSampling: z
      .object({
        temperature: z.number().min(0).max(2).default(1),
        max_completion_tokens: z.number().int().positive().max(1_000_000).default(60000),
      })
      .strict()
      .default({ temperature: 1, max_completion_tokens: 60000 }),
  })
  .strict();
export type SimulatedEnvConfig = z.infer<typeof SimulatedEnvConfigSchema>;

/**
 * The judge mode a `simulated` config runs with: its own, else Simia-RL's with Simia's loop (the default simulator)
 * and ours with the split simulators. One place, so the episode, the reward formula and the Simia export agree.
 */
export function simulatedJudgeMode(options: { simulator?: string; judge?: { mode?: string } } | undefined): "simia" | "strict" {
  const mode = options?.judge?.mode;
  if (mode === "simia" || mode === "strict") return mode;
  return (options?.simulator ?? "simia") === "simia" ? "simia" : "strict";
}
export type SimulatedEnvConfigInput = z.input<typeof SimulatedEnvConfigSchema>;

/** Environment name → the schema of its `environmentOptions`. */
export const ENVIRONMENT_OPTION_SCHEMAS: Record<string, z.ZodType> = {
  simulated: SimulatedEnvConfigSchema,
  sgd: SgdConfigSchema,
  bfcl: BfclConfigSchema,
  "tau2-retail": Tau2RetailConfigSchema,
  "userrl-telepathy": UserRlConfigSchema,
  "userrl-turtle": UserRlConfigSchema,
  "userrl-function": UserRlConfigSchema,
  "userrl-intention": UserRlConfigSchema,
  "userrl-persuade": UserRlConfigSchema,
  "userrl-search": UserRlConfigSchema,
  "userrl-travel": TravelConfigSchema,
  "userrl-tau": UserRlConfigSchema,
  "guess-number": GuessEnvOptionsSchema,
};

/** At most this many problems are reported: 50,000 unknown keys are one message, not 50,000. */
const MAX_ISSUES = 20;

/**
 * Problems of `options` for `environment`, with field paths under `path` (e.g. ["environmentOptions"]). Unknown
 * keys are named (the first few, then how many more); an unknown environment is the run config's own error.
 */
export function environmentOptionsIssues(environment: string, options: unknown, path: string[]): { path: string; message: string }[] {
  const schema = Object.prototype.hasOwnProperty.call(ENVIRONMENT_OPTION_SCHEMAS, environment)
    ? ENVIRONMENT_OPTION_SCHEMAS[environment]
    : null;
  if (!schema) return [];
  const parsed = schema.safeParse(options);
  if (parsed.success) return [];
  return parsed.error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const at = [...path, ...issue.path.map(String)].join(".");
    if (issue.code === "unrecognized_keys") {
      const shown = issue.keys.slice(0, 10).map((k) => JSON.stringify(k.slice(0, 60)));
      const more = issue.keys.length > shown.length ? ` and ${issue.keys.length - shown.length} more` : "";
      return {
        path: at,
        message: `unknown option${issue.keys.length > 1 ? "s" : ""} ${shown.join(", ")}${more} for environment "${environment}"`,
      };
    }
    return { path: at, message: issue.message };
  });
}
