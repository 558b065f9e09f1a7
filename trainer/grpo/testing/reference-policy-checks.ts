/**
 * Checkers for the tensor sections of the reference file (`policy_loss`, `edge_cases`); used by
 * reference-vectors.test.ts. Like the other checkers they fail on any key they do not understand.
 */
import * as tf from "@tensorflow/tfjs";
import { computePolicyLoss, computeTokenSurrogate, type PolicyLossConfig } from "../policy-loss";
import { aggregateLoss } from "../loss-aggregation";
import { computeKlTensor, computeKlValue } from "../kl";
import {
  asMatrix,
  asObject,
  assertAllClose,
  assertClose,
  assertMatrixClose,
  forEachKey,
  read2d,
  readScalar,
  type JsonObject,
} from "./reference-vectors";

const POLICY_LOSS_VARIANT = /^verl_(?:dapo_clip_low([\d.]+)_high([\d.]+)|symmetric_clip([\d.]+))_c([\d.]+)$/;
const TRL_VARIANT = /^eps([\d.]+)(?:_epshigh([\d.]+))?(?:_delta([\d.]+))?$/;

function policyTensors(inputs: JsonObject) {
  return {
    mask: tf.tensor2d(asMatrix(inputs.response_mask)),
    oldLogProbs: tf.tensor2d(asMatrix(inputs.old_log_prob)),
    logProbs: tf.tensor2d(asMatrix(inputs.log_prob)),
    refLogProbs: tf.tensor2d(asMatrix(inputs.ref_log_prob)),
    advantages: tf.tensor2d(asMatrix(inputs.advantages)),
    entropy: tf.tensor2d(asMatrix(inputs.entropy)),
  };
}

function verlConfig(key: string): PolicyLossConfig | null {
  const m = POLICY_LOSS_VARIANT.exec(key);
  if (!m) return null;
  const clipLow = Number(m[1] ?? m[3]);
  const clipHigh = Number(m[2] ?? m[3]);
  return { clipLow, clipHigh, dualClip: Number(m[4]), lossAgg: "token-mean", klCoef: 0, klEstimator: "k3", entropyCoef: 0 };
}

function checkVerlVariant(key: string, v: JsonObject, config: PolicyLossConfig, inputs: ReturnType<typeof policyTensors>) {
  assertClose(v.clip_ratio_low as number, config.clipLow, `${key} clip_ratio_low parsed`);
  forEachKey(v, key, (field, value) => {
    if (["clip_ratio_low", "clip_ratio_high", "clip_ratio_c"].includes(field)) return true;
    if (field === "ratio" || field === "pg_losses_token") {
      const { ratio, pgLosses } = computeTokenSurrogate(inputs, config);
      const got = field === "ratio" ? read2d(ratio) : read2d(pgLosses);
      tf.dispose([ratio, pgLosses]);
      assertMatrixClose(got, asMatrix(value), `${key} ${field}`);
      return true;
    }
    const metricName = { pg_clipfrac: "pg_clipfrac", pg_clipfrac_lower: "dual_clip_frac", ppo_kl: "ppo_kl" }[field];
    if (metricName) {
      const { loss, metrics } = computePolicyLoss(inputs, config);
      assertClose(readScalar(metrics[metricName]), value as number, `${key} ${field}`);
      tf.dispose([loss, ...Object.values(metrics)]);
      return true;
    }
    if (field === "pg_loss") {
      for (const [mode, expected] of Object.entries(asObject(value, field))) {
        const { loss, metrics } = computePolicyLoss(inputs, { ...config, lossAgg: mode });
        assertClose(readScalar(loss), expected as number, `${key} pg_loss ${mode}`);
        tf.dispose([loss, ...Object.values(metrics)]);
      }
      return true;
    }
    return false;
  });
}

const KL_NAMES: Record<string, string> = { k1: "k1", abs: "abs", k2_mse: "k2", k3_low_var_kl: "k3" };

function checkAggregates(got: (mode: string) => number, expected: JsonObject, what: string) {
  for (const [mode, value] of Object.entries(expected)) assertClose(got(mode), value as number, `${what} ${mode}`);
}

function checkTrl(trl: JsonObject, inputs: ReturnType<typeof policyTensors>) {
  forEachKey(trl, "trl", (variant, value) => {
    const m = TRL_VARIANT.exec(variant);
    if (!m) return false;
    const base: PolicyLossConfig = {
      clipLow: Number(m[1]),
      clipHigh: Number(m[2] ?? m[1]),
      delta: m[3] ? Number(m[3]) : null,
      dualClip: null,
      logRatioClamp: null,
      lossAgg: "token-mean",
      klCoef: 0,
      klEstimator: "k3-unclamped",
      entropyCoef: 0,
    };
    forEachKey(asObject(value, variant), variant, (field, fieldValue) => {
      if (field === "per_token_loss_no_kl") {
        const { ratio, pgLosses } = computeTokenSurrogate(inputs, base);
        const got = read2d(pgLosses);
        tf.dispose([ratio, pgLosses]);
        assertMatrixClose(got, asMatrix(fieldValue), `trl ${variant} per-token loss`);
        return true;
      }
      const beta = /^loss_beta([\d.]+)$/.exec(field);
      if (!beta) return false;
      checkAggregates(
        (lossType) => {
          const { loss, metrics } = computePolicyLoss(inputs, { ...base, klCoef: Number(beta[1]), lossAgg: `trl-${lossType}` });
          const value = readScalar(loss);
          tf.dispose([loss, ...Object.values(metrics)]);
          return value;
        },
        asObject(fieldValue, field),
        `trl ${variant} ${field}`,
      );
      return true;
    });
    return true;
  });
}

export function checkPolicyLossSection(section: JsonObject) {
  const inputs = policyTensors(asObject(section.inputs, "inputs"));
  const aggregate = (mat: tf.Tensor, mode: string) => {
    const s = aggregateLoss(mat as tf.Tensor2D, inputs.mask, mode);
    const v = readScalar(s);
    s.dispose();
    return v;
  };
  forEachKey(section, "policy_loss", (key, value) => {
    if (key === "inputs") return true;
    const config = verlConfig(key);
    if (config) {
      checkVerlVariant(key, asObject(value, key), config, inputs);
      return true;
    }
    if (key === "kl_estimators_logprob_vs_ref") {
      forEachKey(asObject(value, key), key, (estimatorKey, estimatorValue) => {
        const estimator = KL_NAMES[estimatorKey];
        if (!estimator) return false;
        const e = asObject(estimatorValue, estimatorKey);
        const kl = computeKlTensor(inputs.logProbs, inputs.refLogProbs, estimator);
        assertMatrixClose(read2d(kl), asMatrix(e.token), `${estimatorKey} token`);
        checkAggregates((mode) => aggregate(kl, mode), asObject(e.agg, "agg"), estimatorKey);
        kl.dispose();
        return true;
      });
      return true;
    }
    if (key === "entropy_agg") {
      checkAggregates((mode) => aggregate(inputs.entropy, mode), asObject(value, key), key);
      return true;
    }
    if (key === "verl_total_loss_dapo_clip") {
      const config: PolicyLossConfig = {
        clipLow: 0.2,
        clipHigh: 0.28,
        dualClip: 3,
        lossAgg: "token-mean",
        klCoef: 0.001,
        klEstimator: "k3",
        entropyCoef: 0.01,
      };
      checkAggregates(
        (mode) => {
          const { loss, metrics } = computePolicyLoss(inputs, { ...config, lossAgg: mode });
          const v = readScalar(loss);
          tf.dispose([loss, ...Object.values(metrics)]);
          return v;
        },
        asObject(asObject(value, key).value, "value"),
        key,
      );
      return true;
    }
    if (key === "trl") {
      checkTrl(asObject(value, key), inputs);
      return true;
    }
    return false;
  });
  tf.dispose(Object.values(inputs));
}

export function checkEdgeCases(section: JsonObject) {
  forEachKey(section, "edge_cases", (key, value) => {
    const c = asObject(value, key);
    if (key === "ratio_logratio_clamp") {
      const t = (x: number) => tf.tensor2d([[x]]);
      const input = { logProbs: t(c.log_prob as number), oldLogProbs: t(c.old_log_prob as number), advantages: t(c.advantage as number) };
      const config: PolicyLossConfig = {
        clipLow: 0.2,
        clipHigh: 0.28,
        dualClip: 3,
        lossAgg: "token-mean",
        klCoef: 0,
        klEstimator: "k3",
        entropyCoef: 0,
      };
      const { ratio, pgLosses } = computeTokenSurrogate(input, config);
      const expected = c.ratio_verl as number;
      // float32 keeps ~7 significant digits of e^20, so compare relatively.
      assertClose(readScalar(ratio) / expected, 1, "clamped ratio / e^20", 1e-6);
      assertClose(readScalar(pgLosses), -1.28, "A>0 loss is -A * (1 + clipHigh)");
      tf.dispose([ratio, pgLosses, ...Object.values(input)]);
      return true;
    }
    if (key === "k3_clamp") {
      assertClose(computeKlValue(c.log_prob as number, c.ref_log_prob as number, "k3"), c.k3_verl as number, "k3 clamp");
      assertClose(computeKlValue(c.log_prob as number, c.ref_log_prob as number, "k3-unclamped"), c.k3_unclamped as number, "k3 unclamped");
      const kl = computeKlTensor(tf.scalar(c.log_prob as number), tf.scalar(c.ref_log_prob as number), "k3");
      assertClose(readScalar(kl), c.k3_verl as number, "k3 tensor clamp");
      return true;
    }
    if (key === "kl_gradients_wrt_log_prob") {
      const tokens = c.tokens as JsonObject[];
      const lp = tf.tensor1d(tokens.map((x) => x.lp as number));
      const refLp = tf.tensor1d(tokens.map((x) => x.ref as number));
      const grads: Record<string, [string, string]> = {
        k1: ["k1", "dk1"],
        k2: ["k2", "dk2"],
        k3: ["k3", "dk3"],
        "k3+": ["k3+", "dk2"],
        "k1+": ["k1+", "dk2"],
      };
      for (const [label, [estimator, field]] of Object.entries(grads)) {
        const g = tf.grad((x: tf.Tensor) => tf.sum(computeKlTensor(x, refLp, estimator)))(lp);
        assertAllClose(
          Array.from(g.dataSync()),
          tokens.map((x) => x[field] as number),
          `d${label}/dlp`,
        );
        g.dispose();
      }
      tf.dispose([lp, refLp]);
      return true;
    }
    return false;
  });
}
