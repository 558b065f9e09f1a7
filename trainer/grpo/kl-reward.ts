/**
 * KL in the reward for outcome advantages (verl `algorithm.use_kl_in_reward`): each sample's scalar score becomes
 * reward - coef * sum_t kl_t over its response (policy) tokens, BEFORE group-relative advantages.
 *
 * Why a sum: verl puts the outcome score on the last response token, `apply_kl_penalty` subtracts coef * kl_t from
 * every response token, and `compute_grpo_outcome_advantage` sums `token_level_rewards` over the response. This
 * function does exactly that with `applyKlPenaltyToRewards`, so the two modes cannot drift apart.
 *
 * Shapes: rewards [B] (null = unscorable), logProbs / refLogProbs / mask [B][T] aligned with each sample's tokens;
 * `logProbs` are the sampling (pre-update) policy's.
 */
import { applyKlPenaltyToRewards } from "./kl";

export interface KlPenalisedScores {
  /** reward - coef * klSum per sample; null where the reward is null (an unscored sample is never scored 0). */
  scores: (number | null)[];
  /** Sum of kl_t over each sample's masked tokens, before the coefficient [B]. */
  klSums: number[];
  /** Mean of kl_t over each sample's masked tokens [B] (verl's per-sequence reward KL). */
  klMeans: number[];
  /** Samples whose KL was not finite (a -inf log-prob): they keep their reward unpenalised, and are counted here. */
  nonFinite: number;
}

export function klPenalisedScores(
  rewards: readonly (number | null)[],
  logProbs: readonly (readonly number[])[],
  refLogProbs: readonly (readonly number[])[],
  mask: readonly (readonly number[])[],
  opts: { coef: number; estimator: string },
): KlPenalisedScores {
  if (logProbs.length !== rewards.length || refLogProbs.length !== rewards.length || mask.length !== rewards.length) {
    throw new Error(
      `klPenalisedScores: ${rewards.length} rewards but ${logProbs.length} / ${refLogProbs.length} / ${mask.length} log-prob / reference / mask rows`,
    );
  }
  // Outcome score on the last policy token, zeros elsewhere (verl's token_level_scores).
  const tokenScores = mask.map((row, b) => {
    const out = row.map(() => 0);
    const last = row.findLastIndex((m) => m !== 0);
    if (last >= 0) out[last] = rewards[b] ?? 0;
    return out;
  });
  const { tokenRewards, klPerSequence } = applyKlPenaltyToRewards(tokenScores, logProbs, refLogProbs, mask, opts);
  const klSums = klPerSequence.map((meanKl, b) => meanKl * mask[b].filter((m) => m !== 0).length);
  let nonFinite = 0;
  const scores = rewards.map((r, b) => {
    if (r === null || !Number.isFinite(r)) return null;
    // A sample without policy tokens (all truncated away) has nothing to penalise: its score is its reward.
    if (!mask[b].some((m) => m !== 0)) return r;
    const penalised = tokenRewards[b].reduce((s, v) => s + v, 0);
    if (Number.isFinite(penalised)) return penalised;
    nonFinite++;
    return r;
  });
  return { scores, klSums, klMeans: klPerSequence, nonFinite };
}
