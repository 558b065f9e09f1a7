/** The `userrl-<gym>` section of a run config (every UserRL gym, the Tau gym included); see lib/environment-options.ts. */
import { z } from "zod";

export const UserRlConfigSchema = z
  .object({
    /**
     * UserRL's step_penalty, taken off as the gym's code does: × the step count (turn k loses stepPenalty × k) in
     * Telepathy, Turtle, Function, Search and Tau; once per turn in Intention, Persuade and Travel.
     */
    stepPenalty: z.number().min(0).max(1).default(0),
    /**
     * UserRL's normalize_rewards: clip each turn reward to [0, 1] after the penalty. Default: the gym's own in UserRL —
     * on for Telepathy, Turtle, Intention and Persuade, off for Function, Search, Travel and Tau.
     */
    normalizeRewards: z.boolean().optional(),
    /**
     * Show each step's reward to the policy, as UserRL's training tool does (`f"{feedback}\nReward: {reward}"`,
     * verl/tools/interact_tool.py). Off shows the gym's feedback alone.
     */
    rewardInObservation: z.boolean().default(true),
  })
  .strict();

/**
 * The `userrl-travel` section: UserRL's TravelGym reward knobs. The defaults are the values UserRL trains with
 * (verl/tools/env_manager.py: search 0, preference 0.8, one choice per aspect); its evaluation uses search 0.2 and
 * preference 0.6 instead. The episode's reward (the per-aspect choice score) uses only the choice rewards.
 */
export const TravelConfigSchema = UserRlConfigSchema.extend({
  /** Turn reward of a search the judge finds aligned with an aspect not searched before. */
  searchCorrectReward: z.number().min(0).max(1).default(0),
  /** Turn reward of a concrete question about a preference the user has and has not yet revealed. */
  preferenceCorrectReward: z.number().min(0).max(1).default(0.8),
  /** Recommending the best option (the cheapest that meets every preference) of an aspect. */
  choiceBestReward: z.number().min(0).max(1).default(1),
  /** Recommending an option that meets the preferences but is not the cheapest. */
  choiceCorrectReward: z.number().min(0).max(1).default(0.8),
  /** Subtracted for a wrong recommendation (the turn reward is then clipped at 0, as TravelGym clips it). */
  wrongChoicePenalty: z.number().min(0).max(1).default(0),
  /** Every N-th search fails with a backend error on purpose (TravelGym's search_failure_interval). */
  searchFailureInterval: z.number().int().min(1).max(1_000_000).default(5),
  /** After N off-target questions in a row the user volunteers a preference on the next one (TravelGym's elicitation_interval). */
  elicitationInterval: z.number().int().min(1).max(1_000_000).default(3),
  /**
   * What the user does on that next off-target question. false (UserRL's training as it runs): apologises that it
   * cannot answer right now and reveals nothing — TravelGym's volunteering branch reads a reply it never assigned, so
   * its own error fallback answers every time. true: volunteers a random remaining preference (TravelGym's design).
   */
  volunteerPreferences: z.boolean().default(false),
  /** One recommendation per aspect, final (a second one for an aspect is refused and earns nothing). */
  oneChoicePerAspect: z.boolean().default(true),
}).strict();
export type TravelOptions = z.infer<typeof TravelConfigSchema>;
