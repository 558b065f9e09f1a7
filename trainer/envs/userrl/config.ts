/** The `userrl-<gym>` section of a run config (every UserRL gym, the Tau gym included). */
import { z } from "zod";

export const UserRlConfigSchema = z
  .object({
    /** UserRL's step_penalty: turn k (1-based) loses stepPenalty × k. */
    stepPenalty: z.number().min(0).max(1).default(0),
    /** UserRL's normalize_rewards: clip each turn reward to [0, 1] after the penalty. */
    normalizeRewards: z.boolean().default(true),
  })
  .strict();
