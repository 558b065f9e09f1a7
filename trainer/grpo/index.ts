/**
 * # trainer/grpo — GRPO-family math as small pure functions (no I/O)
 *
 * | Function | Reproduces |
 * |---|---|
 * | `computeGroupAdvantages` (`grpo`, `trl`, `drgrpo`, `art`) | verl `compute_grpo_outcome_advantage`; TRL `_generate_and_score_completions` (`scale_rewards`, unscorable = NaN rewards, PR #5902); Dr. GRPO; OpenPipe ART |
 * | `computeMultiTurnCredits`, `computeTurnCredits`, `computeTrajectoryScore`, `computeTurnAdvantages`, `expandTurnAdvantagesToTokens` | UserRL `compute_turn_credits` / `compute_grpo_multiturn_advantage` (`grpo_multiturn`) |
 * | `computePolicyLoss` (`PolicyLossConfig`) | verl `compute_policy_loss_vanilla` + `agg_loss` + `dp_actor.update_policy` (KL loss, entropy bonus); DAPO clip-higher; dual clip (`clip_ratio_c`); TRL `_compute_loss` (`delta`, loss types) |
 * | `aggregateLoss` | verl `agg_loss` modes and TRL `loss_type`s |
 * | `computeKlTensor`, `computeKlValue`, `applyKlPenaltyToRewards` | verl `kl_penalty` (k1/abs/k2/k3, "+" straight-through) and `apply_kl_penalty`; TRL `per_token_kl` |
 * | `klPenalisedScores` | verl `use_kl_in_reward` for outcome advantages: score = reward - coef * sum of the response's kl_t |
| `updateAdaptiveKlCoef` | Ziegler et al. 2019 adaptive KL controller (verl `AdaptiveKLController`) |
 * | `filterDynamicSamplingGroups`, `decideDynamicSampling` | DAPO dynamic sampling (verl recipe/dapo) |
 * | `computeOverlongPenalty` | DAPO soft overlong punishment (verl `DAPORewardManager`) |
 *
 * Conventions: std is unbiased (N-1) except DAPO's keep rule and ART; masks are 0/1; token matrices are
 * [batch][tokens]; unscorable rewards are `null` and never count as 0. Variants are chosen by name; an unknown
 * name throws `UnknownVariantError` listing the valid ones. Checked against the reference vectors (tests/fixtures/shared/reference/grpo-vectors.json).
 */
export { UnknownVariantError, pickByName } from "./registry";
export {
  ADVANTAGE_ESTIMATORS,
  computeGroupAdvantages,
  summarizeAdvantages,
  mean,
  std,
  type GroupAdvantageOptions,
  type GroupAdvantageResult,
  type GroupStats,
  type RewardScaling,
} from "./advantages";
export {
  TURN_CREDIT_METHODS,
  TRAJECTORY_SCORE_METHODS,
  computeTurnCredits,
  computeTrajectoryScore,
  computeMultiTurnCredits,
  computeTurnAdvantages,
  countTokensPerTurn,
  expandTurnAdvantagesToTokens,
  turnIdsFromBoundaries,
  computeMultiTurnTokenAdvantages,
  type MultiTurnOptions,
  type MultiTurnResult,
  type MultiTurnTrajectoryCredit,
} from "./multiturn";
export {
  computePolicyLoss,
  computeTokenStats,
  computeTokenSurrogate,
  validatePolicyLossConfig,
  readMetrics,
  POLICY_LOSS_METRIC_KEYS,
  type PolicyLossConfig,
  type PolicyLossInput,
  type PolicyLossResult,
} from "./policy-loss";
export { LOSS_AGGREGATIONS, aggregateLoss, maskedMean, type AggregationOptions } from "./loss-aggregation";
export {
  KL_ESTIMATORS,
  computeKlTensor,
  computeKlValue,
  applyKlPenaltyToRewards,
  updateAdaptiveKlCoef,
  type AdaptiveKlOptions,
  type KlRewardPenaltyResult,
} from "./kl";
export { klPenalisedScores, type KlPenalisedScores } from "./kl-reward";
export {
  shouldKeepGroup,
  filterDynamicSamplingGroups,
  decideDynamicSampling,
  computeOverlongPenalty,
  type DynamicSamplingDecision,
  type DynamicSamplingFilterResult,
  type OverlongPenaltyOptions,
} from "./dapo";
