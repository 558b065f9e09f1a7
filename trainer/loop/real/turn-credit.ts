/**
 * Multi-turn credit assignment for real runs (UserRL grpo_multiturn, RunConfig grpo.turnCredit): per-turn rewards
 * → trajectory score → group-normalised score → turn credits → per-token advantages over each turn's own tokens.
 * Environments that give no per-turn rewards contribute their final reward as the last turn's reward, so "sum"
 * scores them exactly as outcome GRPO would.
 */
import type { ConversationMessage } from "../../../lib/conversation";
import type { RunConfig } from "../../../lib/run-config";
import { computeMultiTurnCredits, computeMultiTurnTokenAdvantages } from "../../grpo/index";

/** Per-policy-turn rewards of one episode, or null when it could not be scored. */
export function turnRewardsOf(messages: ConversationMessage[], finalReward: number | null): number[] | null {
  if (finalReward === null) return null;
  const policyTurns = messages.filter((m) => m.source === "policy");
  if (policyTurns.length === 0) return null;
  const rewards = policyTurns.map((m) => m.turnReward ?? 0);
  if (!policyTurns.some((m) => m.turnReward !== undefined)) rewards[rewards.length - 1] = finalReward;
  return rewards;
}

export interface CreditSample {
  lossMask: number[];
  turnRewards: number[] | null;
  tokenTurnIds: number[];
}

/** RunConfig's lowercase names → the registry names trainer/grpo uses (UserRL's spelling). */
export const TURN_CREDIT_NAMES = { equalized: "Equalized", r2g: "R2G", em: "EM" } as const;
export const TRAJECTORY_SCORE_NAMES = { sum: "Sum", r2g: "R2G" } as const;

/** Token-level advantages for every sample of every group (rows align with `groups[g][i].lossMask`). */
export function multiTurnTokenAdvantages(config: RunConfig, groups: CreditSample[][]): number[][][] {
  if (config.grpo.turnCredit === "none") throw new Error("multi-turn credit requested with grpo.turnCredit = none");
  const flat = groups.flat();
  const groupIds = groups.flatMap((g, gi) => g.map(() => gi));
  const credits = computeMultiTurnCredits(
    flat.map((s) => s.turnRewards),
    groupIds,
    {
      turnCredit: TURN_CREDIT_NAMES[config.grpo.turnCredit],
      trajectoryScore: TRAJECTORY_SCORE_NAMES[config.grpo.trajectoryScore],
      gamma: config.grpo.gamma,
    },
  );
  let k = 0;
  return groups.map((g) => g.map((s) => computeMultiTurnTokenAdvantages(credits.trajectories[k++], s.tokenTurnIds, s.lossMask)));
}
