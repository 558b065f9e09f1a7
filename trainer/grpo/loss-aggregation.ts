/**
 * Reducing a [batch, tokens] loss matrix to a scalar under a 0/1 mask (only policy-generated tokens count).
 * The choice changes how much long vs short responses weigh (DAPO section 3.3; Dr. GRPO section 3.1).
 *
 * verl `agg_loss` modes:
 * - `token-mean`              sum(L * m) / sum(m): every token weighs the same (DAPO's token-level loss)
 * - `seq-mean-token-sum`      mean_b sum_t(L * m)
 * - `seq-mean-token-mean`     mean_b [sum_t(L * m) / sum_t(m)]: original GRPO, each sequence weighs the same
 * - `seq-mean-token-sum-norm` sum_{b,t}(L * m) / maxTokens (verl @ b178a3cd divides by the token dimension only)
 * TRL `loss_type` equivalents (one process, no gradient accumulation):
 * - `trl-grpo` = seq-mean-token-mean; `trl-bnpo` and `trl-dapo` = token-mean;
 * - `trl-dr_grpo`             sum_{b,t}(L * m) / (batch * maxTokens) (Dr. GRPO's constant normaliser)
 * Empty rows count as 0 (denominators are clamped to >= 1, as TRL's `.clamp(min=1.0)`).
 */
import * as tf from "@tensorflow/tfjs";
import { pickByName } from "./registry";

export interface AggregationOptions {
  /** Constant normaliser for the `*-sum-norm` / `dr_grpo` modes; default: the token dimension T. */
  maxTokens?: number;
  /**
   * The batch the loss stands for, when rows that contribute exactly 0 were left out of `lossMat` (an update
   * skipping zero-advantage rows): its row count and masked-token count replace the visible ones as denominators,
   * so the result — and its gradient — is the full batch's.
   */
  rows?: number;
  tokens?: number;
}

type Aggregator = (lossMat: tf.Tensor2D, mask: tf.Tensor2D, opts: AggregationOptions) => tf.Scalar;

const tokenMean: Aggregator = (l, m, o) =>
  tf.div(tf.sum(tf.mul(l, m)), o.tokens !== undefined ? Math.max(o.tokens, 1) : tf.maximum(tf.sum(m), 1));

/** Mean over rows: the visible rows' sum over the batch's row count. */
const rowMean = (perRow: tf.Tensor, o: AggregationOptions): tf.Scalar => tf.div(tf.sum(perRow), o.rows ?? perRow.shape[0]!) as tf.Scalar;

const seqMeanTokenMean: Aggregator = (l, m, o) => rowMean(tf.div(tf.sum(tf.mul(l, m), 1), tf.maximum(tf.sum(m, 1), 1)), o);

const maxTokensOf = (l: tf.Tensor2D, opts: AggregationOptions) => opts.maxTokens ?? l.shape[1];

export const LOSS_AGGREGATIONS: Readonly<Record<string, Aggregator>> = {
  "token-mean": tokenMean,
  "seq-mean-token-sum": (l, m, o) => rowMean(tf.sum(tf.mul(l, m), 1), o),
  "seq-mean-token-mean": seqMeanTokenMean,
  "seq-mean-token-sum-norm": (l, m, o) => tf.div(tf.sum(tf.mul(l, m)), maxTokensOf(l, o)),
  "trl-grpo": seqMeanTokenMean,
  "trl-bnpo": tokenMean,
  "trl-dapo": tokenMean,
  "trl-dr_grpo": (l, m, o) => tf.div(tf.sum(tf.mul(l, m)), (o.rows ?? l.shape[0]) * maxTokensOf(l, o)),
};

/** Aggregates lossMat [B, T] under mask [B, T] (0/1) with the named mode; returns a scalar tensor. */
export function aggregateLoss(lossMat: tf.Tensor2D, mask: tf.Tensor2D, mode: string, opts: AggregationOptions = {}): tf.Scalar {
  const aggregate = pickByName(LOSS_AGGREGATIONS, mode, "loss aggregation");
  return tf.tidy(() => aggregate(lossMat, mask, opts) as tf.Scalar);
}

/** Masked mean over all tokens (verl `masked_mean`), used for metrics. */
export function maskedMean(values: tf.Tensor, mask: tf.Tensor): tf.Scalar {
  return tf.tidy(() => tf.div(tf.sum(tf.mul(values, mask)), tf.maximum(tf.sum(mask), 1)) as tf.Scalar);
}
