/**
 * KL in the reward for real runs (grpo.klInReward, verl `use_kl_in_reward`): before advantages, each sample's score
 * becomes reward - klCoef * sum of kl_t over its policy tokens (trainer/grpo klPenalisedScores), with log-probs of
 * the sampling policy (the weights before this step's update) and of the frozen reference. The KL loss term is off
 * in this mode (real-deps passes klCoef 0 to the loss).
 */
import { klPenalisedScores } from "../../grpo/index";
import { computeLogProbsYielding } from "../../policy/logprobs";
import type { DecoderLM } from "../../policy/model";
import type { AdjustedScores, ScoreGroup } from "../types";
import { bySegment } from "./segments";

export interface KlInRewardOptions {
  coef: number;
  estimator: string;
}

type TokenSample = { tokens: number[]; lossMask: number[]; segmentStarts?: number[] };

/** Log-probs of each sample's tokens, each rendering of its episode run as its own sequence (segments.ts). */
async function segmentedLogProbs(model: DecoderLM, samples: TokenSample[]): Promise<number[][]> {
  const parts = samples.map((s) => bySegment(s.tokens, s.segmentStarts ?? [0]));
  const logps = await computeLogProbsYielding(model, parts.flat());
  let k = 0;
  return parts.map((segments) => segments.flatMap(() => logps[k++]));
}

export function createKlInRewardScorer<S extends TokenSample>(
  policy: DecoderLM,
  reference: DecoderLM,
  opts: KlInRewardOptions,
): (groups: ScoreGroup<S>[]) => Promise<AdjustedScores> {
  return async (groups) => {
    const samples = groups.flatMap((g) => g.samples);
    const masks = samples.map((s) => s.lossMask);
    const { scores, klSums, klMeans, nonFinite } = klPenalisedScores(
      groups.flatMap((g) => g.rewards),
      await segmentedLogProbs(policy, samples),
      await segmentedLogProbs(reference, samples),
      masks,
      opts,
    );
    let k = 0;
    const byGroup = groups.map((g) => g.samples.map(() => scores[k++]));
    return { scores: byGroup, metrics: klInRewardMetrics(scores, klSums, klMeans, masks, nonFinite) };
  };
}

/**
 * kl/in_reward_mean: the summed KL of a sample (before klCoef), mean over samples with policy tokens;
 * kl/in_reward_token_mean: the mean over those samples of their per-token mean KL (verl's actor/reward_kl_penalty);
 * reward/penalised_mean: the mean score advantages were computed from (reward/mean stays the environment's reward);
 * kl/in_reward_nonfinite: samples whose KL was not finite and kept their reward unpenalised (only when some did).
 * Absent rather than 0 when nothing was measured, so charts show a gap.
 */
export function klInRewardMetrics(
  scores: (number | null)[],
  klSums: number[],
  klMeans: number[],
  masks: number[][],
  nonFinite = 0,
): Record<string, number> {
  const metrics: Record<string, number> = {};
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const withTokens = masks.map((m) => m.some((x) => x !== 0));
  const sums = klSums.filter((v, i) => withTokens[i] && Number.isFinite(v));
  const means = klMeans.filter((v, i) => withTokens[i] && Number.isFinite(v));
  if (sums.length) metrics["kl/in_reward_mean"] = mean(sums);
  if (means.length) metrics["kl/in_reward_token_mean"] = mean(means);
  const scored = scores.filter((s): s is number => s !== null);
  if (scored.length) metrics["reward/penalised_mean"] = mean(scored);
  if (nonFinite) metrics["kl/in_reward_nonfinite"] = nonFinite;
  return metrics;
}
