/**
 * What a successful episode is, per environment: the trial outcome pass@k and pass^k count (lib/pass-k.ts).
 *
 * τ²-bench counts a trial as a success when its reward is 1, and there the reward is binary. Elsewhere the reward is
 * shaped — guess-number takes 0.25 off per extra turn, BFCL's progress reward is a fraction of the turns, UserRL's
 * gyms pay partial credit — so "reward = 1" would call a perfect binary search a failure. Each environment's own
 * notion of "solved" is read from the reward components its episode stores (so a stored evaluation is re-scored by
 * this file alone, and the web app needs no trainer code); the text is shown beside every figure and in the API.
 */

type Components = Record<string, number>;

export interface SuccessRule {
  /** One line a researcher can quote beside the figures. */
  text: string;
  /** Whether a scored trial (reward not null) succeeded. */
  success(reward: number, components: Components): boolean;
}

/** τ²'s tolerance around 1 (agent_metrics.is_successful). */
const EPS = 1e-6;
const atLeastOne = (v: number | undefined) => typeof v === "number" && Number.isFinite(v) && v >= 1 - EPS;

/** τ²'s rule (also the fallback for a trial stored without the component an environment's rule reads). */
export const REWARD_ONE: SuccessRule = {
  text: "reward = 1 (τ²-bench's is_successful, within 1e-6)",
  success: (reward) => atLeastOne(reward),
};

/** A rule reading one component; a trial stored before that component existed falls back to reward = 1. */
function byComponent(key: string, text: string): SuccessRule {
  return {
    text,
    success: (reward, c) => (typeof c[key] === "number" ? atLeastOne(c[key]) : REWARD_ONE.success(reward, c)),
  };
}

const RULES: Record<string, SuccessRule> = {
  "tau2-retail": REWARD_ONE,
  "guess-number": byComponent("solved", "the secret was guessed (components.solved = 1), however many turns it took"),
  bfcl: byComponent(
    "bfcl_valid",
    "every checked turn passes gorilla's multi-turn checker, state and responses (components.bfcl_valid = 1), whatever the reward mode",
  ),
  "userrl-telepathy": byComponent("solved", "the entity was guessed (components.solved = 1), step penalties aside"),
  "userrl-turtle": byComponent("best_answer_score", "an explanation covered the whole story (components.best_answer_score = 1)"),
  "userrl-function": byComponent("solved", "the hidden function's answer was given (components.solved = 1)"),
  "userrl-intention": byComponent(
    "weighted_coverage",
    "every detail of the real intention was uncovered (components.weighted_coverage = 1)",
  ),
  "userrl-persuade": byComponent("final_stance_score", "the user ended at Strongly Disagree (components.final_stance_score = 1)"),
  "userrl-search": byComponent("correct", "the answer was found (components.correct = 1)"),
  "userrl-travel": byComponent("choice_score", "the best option was chosen for every aspect (components.choice_score = 1)"),
  "userrl-tau": { ...REWARD_ONE, text: "tau-bench's reward = 1: the data and every required output match the gold actions'" },
  sgd: byComponent(
    "goal_completion",
    "every intent of the dialogue goal was completed (components.goal_completion = 1), whatever the judge's score",
  ),
  simulated: {
    text: "the judge ruled the task's goal met (reward ≥ 0.5: its 0/1 verdict, or most of its samples when it samples several)",
    success: (reward) => Number.isFinite(reward) && reward >= 0.5,
  },
};

/** The rule of an environment by its registry name (τ²'s reward = 1 for a name this file does not know). */
export function successRuleFor(environment: string): SuccessRule {
  return RULES[environment] ?? REWARD_ONE;
}

export const SUCCESS_RULE_ENVIRONMENTS = Object.keys(RULES);
