/**
 * The GRPO/PPO policy loss in TensorFlow.js:
 *
 *   L = agg(pg) + klCoef * agg(KL(pi || pi_ref)) - entropyCoef * agg(H)
 *
 * (verl `dp_actor.update_policy` / `compute_policy_loss_vanilla`; TRL `_compute_loss`). Per token, with
 * ratio r = exp(lp - old) and advantage A:
 *   pg = max(-A * r, -A * clip(r, 1 - clipLow, 1 + clipHigh))        PPO clipped surrogate
 *   clipHigh > clipLow is DAPO's "clip-higher" (Yu et al. 2025, sec. 3.1): low-probability tokens may grow more.
 *   dual clip (Ye et al. 2020, verl `clip_ratio_c`): for A < 0 the loss is additionally capped at -A * c, so one
 *   token whose probability exploded under a negative advantage cannot dominate the batch.
 *   delta (TRL `delta`, INTELLECT-2 two-sided clipping): r is capped at delta in the unclipped branch.
 *   log-ratio clamp (verl: +-20 before exp) keeps exp finite; TRL has none (`logRatioClamp: null`).
 *
 * Shapes: every input is tf.Tensor2D [batch, tokens]; `advantages` are token level (outcome advantages broadcast
 * over the row, or multi-turn ones); `mask` is 1 for policy-generated tokens only (never prompt, user-simulator or
 * tool tokens, never padding).
 *
 * Memory: all intermediates are freed; the returned `loss` and each `metrics` value are new tensors owned by the
 * caller. Inside `tf.variableGrads` / `optimizer.minimize` only the returned scalar survives, so `tf.keep` the
 * metrics there and dispose them after reading (`readMetrics` does both reading and disposing).
 */
import * as tf from "@tensorflow/tfjs";
import { computeKlTensor } from "./kl";
import { aggregateLoss, maskedMean } from "./loss-aggregation";

export interface PolicyLossConfig {
  /** epsilon_low: ratio lower bound 1 - clipLow (verl clip_ratio_low, TRL epsilon). Typical 0.2. */
  clipLow: number;
  /** epsilon_high: ratio upper bound 1 + clipHigh (DAPO clip-higher 0.28; symmetric PPO 0.2). */
  clipHigh: number;
  /** Dual-clip constant c > 1 (verl clip_ratio_c, default 3); null/undefined disables it (TRL). */
  dualClip?: number | null;
  /** Loss aggregation name, see LOSS_AGGREGATIONS. */
  lossAgg: string;
  /** KL-to-reference loss coefficient (verl kl_loss_coef, TRL beta); 0 disables and needs no refLogProbs. */
  klCoef: number;
  /** KL estimator name, see KL_ESTIMATORS (verl default k3 = low_var_kl). */
  klEstimator: string;
  /** Entropy bonus coefficient (verl entropy_coeff); 0 disables and needs no entropy input. */
  entropyCoef: number;
  /** TRL two-sided clipping: cap on r in the unclipped branch (> 1 + clipHigh); null/undefined disables. */
  delta?: number | null;
  /** |lp - old| is clamped to this before exp (verl 20); null disables (TRL). Default 20. */
  logRatioClamp?: number | null;
  /** Normaliser for `seq-mean-token-sum-norm` / `trl-dr_grpo` (max response length); default: tokens dim. */
  maxTokens?: number;
  /** The full batch's row and masked-token counts when zero-contribution rows were left out (see AggregationOptions). */
  batchRows?: number;
  batchTokens?: number;
}

export interface PolicyLossInput {
  /** Current policy log-probs of the sampled tokens (differentiable). */
  logProbs: tf.Tensor2D;
  /** Log-probs under the policy that generated the rollout (constants). */
  oldLogProbs: tf.Tensor2D;
  /** Token-level advantages. */
  advantages: tf.Tensor2D;
  /** 0/1 response mask. */
  mask: tf.Tensor2D;
  /** Reference-policy log-probs; required when klCoef != 0. */
  refLogProbs?: tf.Tensor2D;
  /** Per-token entropy of the current policy; required when entropyCoef != 0. */
  entropy?: tf.Tensor2D;
}

/**
 * Metric names (masked means unless noted): pg_loss (aggregated), loss (total), ppo_kl (mean old-current
 * log-ratio), pg_clipfrac (verl: clipped branch chosen), dual_clip_frac (verl pg_clipfrac_lower),
 * clip_frac_low / clip_frac_high (TRL: r < 1-clipLow with A<0 / r > 1+clipHigh with A>0), ratio_mean,
 * ratio_min, ratio_max, and when present kl (aggregated like the loss) and entropy (aggregated like the loss).
 */
export interface PolicyLossResult {
  loss: tf.Scalar;
  metrics: Record<string, tf.Scalar>;
}

/** Suggested dashboard keys (GUIDE metric names) for the metrics above. */
export const POLICY_LOSS_METRIC_KEYS: Readonly<Record<string, string>> = {
  loss: "loss/total",
  pg_loss: "loss/policy",
  kl: "kl",
  entropy: "entropy",
  ppo_kl: "ppo_kl",
  pg_clipfrac: "clip/frac",
  dual_clip_frac: "clip/frac_dual",
  clip_frac_low: "clip/frac_low",
  clip_frac_high: "clip/frac_high",
  ratio_mean: "ratio/mean",
  ratio_min: "ratio/min",
  ratio_max: "ratio/max",
};

export function validatePolicyLossConfig(config: PolicyLossConfig): void {
  const problems: string[] = [];
  if (!(config.clipLow >= 0 && config.clipLow < 1)) problems.push(`clipLow must be in [0, 1) (got ${config.clipLow})`);
  if (!(config.clipHigh >= 0)) problems.push(`clipHigh must be >= 0 (got ${config.clipHigh})`);
  if (config.dualClip != null && !(config.dualClip > 1)) {
    problems.push(`dualClip must be > 1 (verl clip_ratio_c, typically 3) or null to disable (got ${config.dualClip})`);
  }
  if (config.delta != null && !(config.delta > 1 + config.clipHigh)) {
    problems.push(`delta must exceed 1 + clipHigh (got ${config.delta}); use null to disable`);
  }
  if (problems.length) throw new Error(`Invalid policy loss config: ${problems.join("; ")}`);
}

/** Per-token clipped surrogate losses [B, T] and the masks needed for clip metrics. */
function surrogate(input: Pick<PolicyLossInput, "logProbs" | "oldLogProbs" | "advantages">, config: PolicyLossConfig) {
  const { logProbs, oldLogProbs, advantages } = input;
  const clampAt = config.logRatioClamp === undefined ? 20 : config.logRatioClamp;
  let logRatio: tf.Tensor = tf.sub(logProbs, oldLogProbs);
  if (clampAt !== null) logRatio = tf.clipByValue(logRatio, -clampAt, clampAt);
  const ratio = tf.exp(logRatio);
  const negAdv = tf.neg(advantages);
  const cappedRatio = config.delta != null ? tf.minimum(ratio, config.delta) : ratio;
  const unclipped = tf.mul(negAdv, cappedRatio);
  const clipped = tf.mul(negAdv, tf.clipByValue(ratio, 1 - config.clipLow, 1 + config.clipHigh));
  const ppoLoss = tf.maximum(unclipped, clipped);
  const negativeAdv = tf.less(advantages, 0);
  let pg: tf.Tensor = ppoLoss;
  let dualClipped: tf.Tensor = tf.zerosLike(ppoLoss);
  if (config.dualClip != null) {
    const cap = tf.mul(negAdv, config.dualClip);
    pg = tf.where(negativeAdv, tf.minimum(cap, ppoLoss), ppoLoss);
    dualClipped = tf.logicalAnd(tf.greater(ppoLoss, cap), negativeAdv);
  }
  return { logRatio, ratio, pg, clippedChosen: tf.greater(clipped, unclipped), dualClipped, negativeAdv };
}

/**
 * Per-token ratio and clipped-surrogate loss [B, T] before masking/aggregation (for inspection and tests).
 * The caller owns (and must dispose) both tensors.
 */
export function computeTokenSurrogate(
  input: Pick<PolicyLossInput, "logProbs" | "oldLogProbs" | "advantages">,
  config: PolicyLossConfig,
): { ratio: tf.Tensor2D; pgLosses: tf.Tensor2D } {
  validatePolicyLossConfig(config);
  return tf.tidy(() => {
    const s = surrogate(input, config);
    return { ratio: s.ratio as tf.Tensor2D, pgLosses: s.pg as tf.Tensor2D };
  });
}

/**
 * What the loss did to each token [B, T], for the inspector's policy view: the ratio π/π_old, which branch of the
 * surrogate bound (0 none, 1 the PPO clip: the token gives no gradient, 2 the dual-clip cap) and, given reference
 * log-probs, the per-token KL. Same rules as computePolicyLoss (both use `surrogate`). Not differentiable; the
 * caller owns the tensors.
 */
export function computeTokenStats(
  input: Pick<PolicyLossInput, "logProbs" | "oldLogProbs" | "advantages" | "refLogProbs">,
  config: PolicyLossConfig,
): { ratio: tf.Tensor2D; clipCode: tf.Tensor2D; kl?: tf.Tensor2D } {
  validatePolicyLossConfig(config);
  return tf.tidy(() => {
    const s = surrogate(input, config);
    const clipCode = tf.add(tf.cast(s.clippedChosen, "float32"), tf.cast(s.dualClipped, "float32")) as tf.Tensor2D;
    const kl = input.refLogProbs ? (computeKlTensor(input.logProbs, input.refLogProbs, config.klEstimator) as tf.Tensor2D) : undefined;
    return { ratio: s.ratio as tf.Tensor2D, clipCode, ...(kl && { kl }) };
  });
}

/** Computes the total policy loss and its metrics; see the file comment. Throws on a bad config / missing input. */
export function computePolicyLoss(input: PolicyLossInput, config: PolicyLossConfig): PolicyLossResult {
  validatePolicyLossConfig(config);
  if (config.klCoef !== 0 && !input.refLogProbs) {
    throw new Error("klCoef != 0 needs refLogProbs (reference-policy log-probs); set klCoef: 0 to train without KL");
  }
  if (config.entropyCoef !== 0 && !input.entropy) {
    throw new Error("entropyCoef != 0 needs the per-token entropy tensor; set entropyCoef: 0 to disable the bonus");
  }
  return tf.tidy(() => {
    const mask = tf.cast(input.mask, "float32") as tf.Tensor2D;
    const agg = (m: tf.Tensor) =>
      aggregateLoss(m as tf.Tensor2D, mask, config.lossAgg, {
        maxTokens: config.maxTokens,
        rows: config.batchRows,
        tokens: config.batchTokens,
      });
    const s = surrogate(input, config);
    const pgLoss = agg(s.pg);
    let loss: tf.Scalar = pgLoss;
    const metrics: Record<string, tf.Scalar> = { pg_loss: pgLoss };

    if (input.refLogProbs) {
      const kl = agg(computeKlTensor(input.logProbs, input.refLogProbs, config.klEstimator));
      metrics.kl = kl;
      if (config.klCoef !== 0) loss = tf.add(loss, tf.mul(kl, config.klCoef));
    }
    if (input.entropy) {
      const entropy = agg(input.entropy);
      metrics.entropy = entropy;
      if (config.entropyCoef !== 0) loss = tf.sub(loss, tf.mul(entropy, config.entropyCoef));
    }

    const positiveAdv = tf.greater(input.advantages, 0);
    const frac = (flags: tf.Tensor) => maskedMean(tf.cast(flags, "float32"), mask);
    metrics.loss = loss;
    metrics.ppo_kl = maskedMean(tf.neg(s.logRatio), mask);
    metrics.pg_clipfrac = frac(s.clippedChosen);
    metrics.dual_clip_frac = frac(s.dualClipped);
    metrics.clip_frac_low = frac(tf.logicalAnd(tf.less(s.ratio, 1 - config.clipLow), s.negativeAdv));
    metrics.clip_frac_high = frac(tf.logicalAnd(tf.greater(s.ratio, 1 + config.clipHigh), positiveAdv));
    metrics.ratio_mean = maskedMean(s.ratio, mask);
    const isToken = tf.greater(mask, 0);
    metrics.ratio_max = tf.max(tf.where(isToken, s.ratio, tf.fill(s.ratio.shape, -Infinity))) as tf.Scalar;
    metrics.ratio_min = tf.min(tf.where(isToken, s.ratio, tf.fill(s.ratio.shape, Infinity))) as tf.Scalar;
    // Clones so that no metric aliases `loss` (disposing the metrics must not free the loss, or vice versa).
    const ownMetrics: Record<string, tf.Scalar> = {};
    for (const [name, value] of Object.entries(metrics)) ownMetrics[name] = tf.clone(value);
    return { loss, metrics: ownMetrics };
  });
}

/** Reads every metric to a plain number and disposes the tensors. */
export async function readMetrics(metrics: Record<string, tf.Scalar>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, tensor] of Object.entries(metrics)) {
    out[name] = (await tensor.data())[0];
    tensor.dispose();
  }
  return out;
}
