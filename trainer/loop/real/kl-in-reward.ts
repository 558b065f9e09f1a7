/**
 * KL in the reward for real runs (grpo.klInReward, verl `use_kl_in_reward`): before advantages, each sample's score
 * becomes reward - klCoef * sum of kl_t over its policy tokens (trainer/grpo klPenalisedScores), with log-probs of
 * the sampling policy (the weights before this step's update) and of the frozen reference. The KL loss term is off
 * in this mode (real-deps passes klCoef 0 to the loss).
 */
import { klPenalisedScores } from "../../grpo/index";
import { computeLogProbs } from "../../policy/logprobs";
import type { DecoderLM } from "../../policy/model";
import type { AdjustedScores, ScoreGroup } from "../types";

export interface KlInRewardOptions {
  coef: number;
  estimator: string;
}

type TokenSample = { tokens: number[]; lossMask: number[] };

export function createKlInRewardScorer<S extends TokenSample>(
  policy: DecoderLM,
  reference: DecoderLM,
  opts: KlInRewardOptions,
): (groups: ScoreGroup<S>[]) => Promise<AdjustedScores> {
  return async (groups) => {
    const samples = groups.flatMap((g) => g.samples);
    const tokens = samples.map((s) => s.tokens);
    const masks = samples.map((s) => s.lossMask);
    const { scores, klSums } = klPenalisedScores(
      groups.flatMap((g) => g.rewards),
      computeLogProbs(policy, tokens),
      computeLogProbs(reference, tokens),
      masks,
      opts,
    );
    let k = 0;
    const byGroup = groups.map((g) => g.samples.map(() => scores[k++]));
    return { scores: byGroup, metrics: klInRewardMetrics(scores, klSums, masks) };
  };
}

/**
 * kl/in_reward_mean: the summed KL a sample's score was charged for (times klCoef), mean over samples with policy
 * tokens; kl/in_reward_token_mean: per policy token (verl's actor/reward_kl_penalty); reward/penalised_mean: the
 * mean score advantages were computed from (reward/mean stays the environment's reward). Absent rather than 0 when
 * nothing was measured, so charts show a gap.
 */
export function klInRewardMetrics(scores: (number | null)[], klSums: number[], masks: number[][]): Record<string, number> {
  const metrics: Record<string, number> = {};
  const counts = masks.map((m) => m.filter((x) => x !== 0).length);
  const measured = klSums.filter((_, i) => counts[i] > 0);
  const tokens = counts.reduce((a, b) => a + b, 0);
  if (measured.length) metrics["kl/in_reward_mean"] = measured.reduce((a, b) => a + b, 0) / measured.length;
  if (tokens) metrics["kl/in_reward_token_mean"] = measured.reduce((a, b) => a + b, 0) / tokens;
  const scored = scores.filter((s): s is number => s !== null);
  if (scored.length) metrics["reward/penalised_mean"] = scored.reduce((a, b) => a + b, 0) / scored.length;
  return metrics;
}
