/**
 * Group-relative (outcome) advantages on plain numbers: one scalar reward per sampled trajectory, trajectories of
 * the same prompt share a group id, each trajectory's advantage is its reward relative to its group.
 *
 * Shapes: rewards [N] (null = unscorable), groupIds [N]  ->  advantages [N], one GroupStats per distinct group id
 * (in order of first appearance). The trainer broadcasts a trajectory's advantage to its response tokens.
 *
 * Estimators (pick by name, `ADVANTAGE_ESTIMATORS`):
 * - `grpo`   verl `compute_grpo_outcome_advantage`: A = (r - mean) / (std + 1e-6), std unbiased (torch.std, N-1);
 *            a group with one scored sample uses mean 0, std 1 (its advantage is its raw reward).
 * - `trl`    TRL `_generate_and_score_completions`: eps 1e-4; `scaleRewards` "group" (unbiased group std),
 *            "batch" (unbiased std of the whole batch, group mean still subtracted) or "none".
 * - `drgrpo` Dr. GRPO (Liu et al. 2025; verl `norm_adv_by_std_in_grpo=False`): A = r - mean, no std division,
 *            which removes the question-difficulty bias; singleton groups as in `grpo`.
 * - `art`    OpenPipe ART (2025-06): population std (N), eps 1e-6.
 *
 * Unscorable samples (reward null, e.g. the judge failed) are left out of every statistic and get advantage 0:
 * counting them as reward 0 would push the policy away from answers nobody scored (TRL PR #5902 nanmean/nanstd).
 */
import { pickByName } from "./registry";

export type RewardScaling = "group" | "batch" | "none";

export interface GroupAdvantageOptions {
  /** Estimator name, one of `Object.keys(ADVANTAGE_ESTIMATORS)`. */
  estimator: string;
  /** Overrides the estimator's epsilon (added to the std before dividing). */
  epsilon?: number;
  /** Only for `trl` (TRL `scale_rewards`); default "group". */
  scaleRewards?: RewardScaling;
}

export interface GroupStats {
  groupId: string | number;
  /** Samples in the group, including unscorable ones. */
  size: number;
  /** Samples with a numeric reward (the ones the statistics use). */
  scoredCount: number;
  /** Baseline subtracted (verl singleton convention: 0); null when nothing in the group was scored. */
  mean: number | null;
  /** Scale divided by (before epsilon); null when the estimator does not divide or nothing was scored. */
  std: number | null;
  /** True when >= 2 scored rewards are all equal: every advantage is 0, the group teaches nothing (DAPO drops it). */
  zeroVariance: boolean;
}

export interface GroupAdvantageResult {
  advantages: number[];
  groups: GroupStats[];
  /** Per sample: false for unscorable (null / non-finite) rewards. */
  scored: boolean[];
}

type StdKind = "unbiased" | "population" | "none";

interface EstimatorSpec {
  epsilon: number;
  std: StdKind;
  /** What a group with a single scored reward yields: verl keeps the raw reward, TRL/ART give 0. */
  singleton: "raw-reward" | "zero";
  acceptsScaleRewards: boolean;
}

/** Registry of estimator conventions; see the file comment for the upstream of each. */
export const ADVANTAGE_ESTIMATORS: Readonly<Record<string, EstimatorSpec>> = {
  grpo: { epsilon: 1e-6, std: "unbiased", singleton: "raw-reward", acceptsScaleRewards: false },
  trl: { epsilon: 1e-4, std: "unbiased", singleton: "zero", acceptsScaleRewards: true },
  drgrpo: { epsilon: 1e-6, std: "none", singleton: "raw-reward", acceptsScaleRewards: false },
  art: { epsilon: 1e-6, std: "population", singleton: "zero", acceptsScaleRewards: false },
};

export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Standard deviation; `unbiased` divides by N-1 (torch.std default), `population` by N (np.std default). */
export function std(values: readonly number[], kind: "unbiased" | "population"): number {
  const n = values.length;
  const denominator = kind === "unbiased" ? n - 1 : n;
  if (denominator <= 0) return 0;
  const m = mean(values);
  let sq = 0;
  for (const v of values) sq += (v - m) * (v - m);
  return Math.sqrt(sq / denominator);
}

export function isScorable(reward: number | null | undefined): reward is number {
  return typeof reward === "number" && Number.isFinite(reward);
}

/** Sample indices per group id, in order of first appearance. */
export function groupIndices(groupIds: readonly (string | number)[]): Map<string | number, number[]> {
  const groups = new Map<string | number, number[]>();
  groupIds.forEach((id, i) => {
    const members = groups.get(id);
    if (members) members.push(i);
    else groups.set(id, [i]);
  });
  return groups;
}

/** Group-relative advantages; see the file comment. Throws on length mismatch or an unknown estimator. */
export function computeGroupAdvantages(
  rewards: readonly (number | null)[],
  groupIds: readonly (string | number)[],
  opts: GroupAdvantageOptions,
): GroupAdvantageResult {
  if (rewards.length !== groupIds.length) {
    throw new Error(`rewards (${rewards.length}) and groupIds (${groupIds.length}) must have the same length`);
  }
  const spec = pickByName(ADVANTAGE_ESTIMATORS, opts.estimator, "advantage estimator");
  if (opts.scaleRewards !== undefined && !spec.acceptsScaleRewards) {
    throw new Error(
      `scaleRewards only applies to the "trl" estimator (got estimator "${opts.estimator}"); ` +
        `use estimator "drgrpo" for no std scaling`,
    );
  }
  const epsilon = opts.epsilon ?? spec.epsilon;
  const scaling: RewardScaling = spec.std === "none" ? "none" : (opts.scaleRewards ?? "group");

  const scored = rewards.map(isScorable);
  const batchScored = rewards.filter(isScorable);
  const batchStd = std(batchScored, spec.std === "population" ? "population" : "unbiased");

  const advantages = new Array<number>(rewards.length).fill(0);
  const groups: GroupStats[] = [];
  for (const [groupId, members] of groupIndices(groupIds)) {
    const values = members.filter((i) => scored[i]).map((i) => rewards[i] as number);
    const stats = groupBaseline(values, spec, scaling, batchStd);
    groups.push({ groupId, size: members.length, scoredCount: values.length, ...stats });
    if (stats.mean === null || stats.zeroVariance) continue; // nothing scored, or nothing to prefer
    const denominator = stats.std === null ? 1 : stats.std + epsilon;
    for (const i of members) {
      if (scored[i]) advantages[i] = ((rewards[i] as number) - stats.mean) / denominator;
    }
  }
  return { advantages, groups, scored };
}

function groupBaseline(
  values: readonly number[],
  spec: EstimatorSpec,
  scaling: RewardScaling,
  batchStd: number,
): Pick<GroupStats, "mean" | "std" | "zeroVariance"> {
  if (values.length === 0) return { mean: null, std: null, zeroVariance: false };
  if (values.length === 1) {
    // verl: "mean 0, std 1" so a lone rollout keeps its reward; TRL/ART: the reward is its own baseline -> 0.
    if (spec.singleton === "raw-reward") return { mean: 0, std: spec.std === "none" ? null : 1, zeroVariance: false };
    return { mean: values[0], std: scaling === "none" ? null : 0, zeroVariance: false };
  }
  const m = mean(values);
  const zeroVariance = values.every((v) => v === values[0]);
  if (scaling === "none") return { mean: m, std: null, zeroVariance };
  if (scaling === "batch") return { mean: m, std: batchStd, zeroVariance };
  return { mean: m, std: std(values, spec.std === "population" ? "population" : "unbiased"), zeroVariance };
}

/** Batch-level summary for metrics (`adv/*`, `reward/*`); ignores unscorable samples. */
export function summarizeAdvantages(result: GroupAdvantageResult): {
  advantageMean: number | null;
  advantageAbsMean: number | null;
  zeroVarianceGroupFraction: number;
  unscorableFraction: number;
} {
  const scoredAdv = result.advantages.filter((_, i) => result.scored[i]);
  const n = result.advantages.length;
  return {
    advantageMean: scoredAdv.length ? mean(scoredAdv) : null,
    advantageAbsMean: scoredAdv.length ? mean(scoredAdv.map(Math.abs)) : null,
    zeroVarianceGroupFraction: result.groups.length ? result.groups.filter((g) => g.zeroVariance).length / result.groups.length : 0,
    unscorableFraction: n ? result.scored.filter((s) => !s).length / n : 0,
  };
}
