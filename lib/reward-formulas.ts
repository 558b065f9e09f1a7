/**
 * How each environment turns an episode into its reward, in words a researcher reads next to the numbers, and which
 * recorded components are terms of that formula rather than diagnostics (counts, shares and checks recorded beside
 * the reward that do not enter it). Written from the environments' scoring code (trainer/envs/*: each entry names
 * its function); the web app cannot import the trainer, so this is the catalog's copy. reward-formulas.test.ts
 * checks it against what each environment records.
 */
export interface RewardFormula {
  /** One line, e.g. "reward = solved ? max(0, 1 − 0.25 × (turns − 1)) : 0". */
  formula: string;
  /** Component keys that are terms of the formula; every other recorded component is a diagnostic. */
  terms: string[];
  /** What else decides the reward (multi-turn credit, curriculum stages switching the mode…). */
  notes: string[];
}

/** What of a run the formula depends on: its environment, options, whether an LLM judge is configured, the task. */
export interface RewardContext {
  environment: string;
  environmentOptions?: Record<string, unknown>;
  llmJudge?: boolean;
  /** The task as recorded with its group ({ data: … }): τ² tasks name their reward basis there. */
  task?: unknown;
  /** grpo.turnCredit: with turn-level credit the update trains on per-turn rewards, not on this reward. */
  turnCredit?: string;
  /** Whether curriculum stages override the environment's options (EnvTuning switches its reward mode). */
  stagesOverrideOptions?: boolean;
}

const option = <T>(ctx: RewardContext, key: string, fallback: T): T => (ctx.environmentOptions?.[key] as T | undefined) ?? fallback;

const TAU2_KEYS: Record<string, string> = {
  DB: "db",
  COMMUNICATE: "communicate",
  ACTION: "action",
  NL_ASSERTION: "nl_assertion",
  ENV_ASSERTION: "env_assertion",
};

function tau2Basis(task: unknown): string[] {
  const basis = (task as { data?: { rewardBasis?: unknown } } | undefined)?.data?.rewardBasis;
  return Array.isArray(basis) && basis.every((b) => typeof b === "string" && b in TAU2_KEYS) ? basis : ["DB", "COMMUNICATE"];
}

const USERRL: Record<string, Omit<RewardFormula, "notes">> = {
  "userrl-telepathy": {
    formula: "reward = 1 if the judge accepted a guess (offline: the entity's name or an alias), else 0",
    terms: ["solved"],
  },
  "userrl-turtle": {
    formula: "reward = the best [answer]'s Σ weight × grade over the story's evaluation criteria (grades 0, ½, 1)",
    terms: ["best_answer_score"],
  },
  "userrl-function": {
    formula: "reward = 1 if an [answer] equals the hidden rule on the test case (within 1e-6), else 0",
    terms: ["solved"],
  },
  "userrl-intention": {
    formula: "reward = Σ importance of the details covered / Σ importance of all details",
    terms: ["weighted_coverage"],
  },
  "userrl-persuade": {
    formula: "reward = the final stance's score (Strongly Agree 0 … Neutral ½ … Strongly Disagree 1)",
    terms: ["final_stance_score"],
  },
  "userrl-travel": {
    formula:
      "reward = mean over the task's aspects of its recommendation's reward (best option 1, one meeting the preferences 0.8, other 0)",
    terms: ["choice_score"],
  },
  "userrl-search": { formula: "reward = 1 if an [answer] matches after normalisation or the judge says yes, else 0", terms: ["correct"] },
  "userrl-tau": {
    formula: "reward = ended × data_match × (outputs_said = 1): the database as the gold actions leave it and every required output said",
    terms: ["ended", "data_match", "outputs_said"],
  },
};

function baseFormula(ctx: RewardContext): Omit<RewardFormula, "notes"> | null {
  switch (ctx.environment) {
    case "guess-number": {
      const penalty = option<number>(ctx, "turnPenalty", 0.25);
      return { formula: `reward = solved ? max(0, 1 − ${penalty} × (turns − 1)) : 0`, terms: ["solved", "turns"] };
    }
    case "simulated": {
      // judge.mode unset is Simia's with Simia's loop (the default simulator): environment-options' simulatedJudgeMode.
      const judge = option<{ mode?: string } | undefined>(ctx, "judge", undefined);
      const simiaJudge = judge?.mode === "simia" || (judge?.mode === undefined && option(ctx, "simulator", "simia") === "simia");
      if (ctx.llmJudge && simiaJudge)
        return { formula: 'reward = float(the judge\'s "reward"), read as Simia-RL reads it (0 when absent or unreadable)', terms: [] };
      return ctx.llmJudge
        ? { formula: "reward = the LLM judge's score in [0, 1] (its other keys are its own diagnostics)", terms: [] }
        : {
            formula:
              "reward = 1 if no forbidden call was made and the expected calls made plus facts told reach the judge threshold (share of all), else 0",
            terms: ["calls", "facts", "policy"],
          };
    }
    case "sgd":
      return option<string>(ctx, "rewardMode", "turn_judge") === "goal_blend"
        ? (() => {
            const w = option<number>(ctx, "judgeWeight", 0.5);
            return {
              formula: `reward = ${Number((1 - w).toFixed(4))} × goal_completion + ${w} × judge_quality`,
              terms: ["goal_completion", "judge_quality"],
            };
          })()
        : {
            formula: "reward = mean over judged turns of clamp(quality + tool term, 0, 2) / 2 (goal completion is recorded, not rewarded)",
            terms: ["turn_judge_mean"],
          };
    case "tau2-retail": {
      const basis = tau2Basis(ctx.task);
      return {
        formula: `reward = stopped × ${basis.join(" × ")} (τ²: 1 only if the episode ended properly and every check of the task's reward basis passes)`,
        terms: ["stopped", ...basis.map((b) => TAU2_KEYS[b])],
      };
    }
    case "bfcl":
      switch (option<string>(ctx, "rewardMode", "progress")) {
        case "format":
          return {
            formula: "reward = is_tool_call × (format_reward + tool_call_reward), 0 … 2 (EnvTuning's format stage)",
            terms: ["format", "is_tool_call", "format_reward", "tool_call_reward"],
          };
        case "binary":
          return {
            formula: "reward = 1 if every turn with ground-truth calls passes BFCL's state and response checks, else 0",
            terms: ["bfcl_valid"],
          };
        default:
          return { formula: "reward = mean of the pass / fail verdicts of the user turns the policy closed", terms: ["progress"] };
      }
    default:
      return USERRL[ctx.environment] ?? null;
  }
}

/** The reward formula of a run's environment, or null for an environment this catalog does not describe. */
export function rewardFormula(ctx: RewardContext): RewardFormula | null {
  const base = baseFormula(ctx);
  if (!base) return null;
  const notes: string[] = [];
  if (ctx.turnCredit && ctx.turnCredit !== "none") {
    notes.push(`The update trains on per-turn rewards (turn credit "${ctx.turnCredit}"), not on this episode reward.`);
  }
  if (ctx.turnCredit === "r2g") {
    // Checked against UserRL's compute_grpo_multiturn_advantage (tests/fixtures/parity/userrl-gyms.json).
    notes.push(
      "With r2g credit a trajectory whose turn rewards are all 0 gets advantage 0 on every token (its credits sum to 0), as in " +
        "UserRL: only trajectories that earned some reward are reinforced; failures are not pushed down.",
    );
  }
  if (ctx.stagesOverrideOptions) notes.push("Curriculum stages override environment options: a stage may score with another mode.");
  return { ...base, notes };
}

/** The context of a stored run config (read defensively: imported runs carry other trainers' configs). */
export function rewardContextOf(config: unknown, task: unknown): RewardContext | null {
  const c = config as {
    environment?: unknown;
    environmentOptions?: Record<string, unknown>;
    llm?: { judge?: unknown };
    grpo?: { turnCredit?: unknown };
    curriculum?: { environmentOptions?: unknown }[];
  } | null;
  if (!c || typeof c.environment !== "string") return null;
  return {
    environment: c.environment,
    environmentOptions: c.environmentOptions ?? {},
    llmJudge: Boolean(c.llm?.judge),
    task,
    turnCredit: typeof c.grpo?.turnCredit === "string" ? c.grpo.turnCredit : undefined,
    stagesOverrideOptions: Array.isArray(c.curriculum) && c.curriculum.some((s) => s?.environmentOptions),
  };
}
