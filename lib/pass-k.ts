import { REWARD_ONE, type SuccessRule } from "./success-rules";
import type { UnscoredCause } from "./unscored-cause";

/**
 * Evaluation scores as τ²-bench reports them (sierra-research/tau2-bench, src/tau2/metrics/agent_metrics.py):
 *
 * - a trial succeeds as its environment defines success (lib/success-rules.ts): τ²'s own rule is reward 1 (within
 *   1e-6, `is_successful`); environments with shaped rewards count "solved" (guess-number), gorilla's checker (BFCL)…;
 * - pass^k of a task with c successes in n trials is C(c, k) / C(n, k) — the chance that k trials drawn without
 *   replacement all succeed (Yao et al. 2024, τ-bench) — and the run's pass^k is its mean over tasks, for k = 1 up to
 *   the fewest trials any task has (τ² lowers its max k the same way);
 * - pass^1 = pass@1 is the mean per-task success rate; the mean reward is over every scored trial;
 * - trials without a reward (the environment or the policy endpoint failed after its retries) are left out and
 *   counted, as τ² leaves out its infrastructure errors: they are never scored 0.
 *
 * pass@k (Chen et al. 2021: at least one of k trials succeeds, 1 − C(n − c, k) / C(n, k)) is reported beside it,
 * as verifiers and BFCL users read it. Pure: the trainer records these, the web app shows them.
 */

/** One trial (episode) of one task. */
export interface EvalTrial {
  taskId: string;
  /** null: not scored (the episode failed); left out of every score and counted as `unscored`. */
  reward: number | null;
  components?: Record<string, number>;
  /** What the trial's LLM calls cost (policy, simulators, judge); counted even when the trial was not scored. */
  costUsd?: number;
  /** Why it has no reward (lib/unscored-cause.ts); absent for a scored trial. */
  unscoredCause?: UnscoredCause | null;
}

export interface TaskScore {
  taskId: string;
  /** Scored trials (n). */
  trials: number;
  /** Trials whose reward is 1 (c). */
  successes: number;
  unscored: number;
  rewardMean: number | null;
  /** pass^k for k = 1..trials (index k − 1). */
  passHat: number[];
  costUsd: number;
  components: Record<string, number>;
}

export interface EvalSummary {
  /** Tasks with at least one scored trial. */
  tasks: number;
  /** Scored trials over all tasks. */
  trials: number;
  unscored: number;
  /** The largest k every task supports: the fewest scored trials of any task (0 when nothing was scored). */
  maxK: number;
  rewardMean: number | null;
  /** pass^k by k = 1..maxK (τ²'s pass_hat_ks). */
  passHat: Record<number, number>;
  /** pass@k by k = 1..maxK. */
  passAt: Record<number, number>;
  costUsd: number;
  /** Of costUsd: the LLM calls of tasks cut short (cost ceiling, cancel), kept without a trajectory. */
  unattachedCostUsd: number;
  /** Cost per trial, scored or not (τ²'s avg_agent_cost is the same mean over its simulations). */
  costPerTrial: number | null;
  components: Record<string, number>;
  perTask: TaskScore[];
  /** What counted as a success (the environment's rule, lib/success-rules.ts), to print beside the figures. */
  successRule: string;
  /** Unscored trials by cause (lib/unscored-cause.ts): only the causes that occurred. */
  unscoredCauses: Partial<Record<UnscoredCause, number>>;
}

/** τ²'s tolerance around a reward of 1. */
const SUCCESS_EPS = 1e-6;

/**
 * τ²'s success test is |reward − 1| ≤ 1e-6; rewards here may exceed 1 in a few environments, and a reward above
 * full marks is still a success.
 */
export function isSuccess(reward: number | null): boolean {
  return reward !== null && Number.isFinite(reward) && reward >= 1 - SUCCESS_EPS;
}

/** C(n, k) as an exact integer (Python's math.comb). */
export function comb(n: number, k: number): bigint {
  if (!Number.isInteger(n) || !Number.isInteger(k) || n < 0 || k < 0) throw new RangeError(`comb(${n}, ${k}) needs integers ≥ 0`);
  if (k > n) return 0n;
  const m = Math.min(k, n - k);
  let r = 1n;
  for (let i = 1; i <= m; i++) r = (r * BigInt(n - m + i)) / BigInt(i);
  return r;
}

/** a / b rounded once when both are exact doubles (as Python's int / int is for every size). */
function ratio(a: bigint, b: bigint): number {
  return Number(a) / Number(b);
}

/** pass^k of one task: C(c, k) / C(n, k) (τ²'s pass_hat_k, which refuses n < k). */
export function passHatK(n: number, c: number, k: number): number {
  if (n < k) throw new RangeError(`Number of trials ${n} is less than k ${k}.`);
  if (c < 0 || c > n) throw new RangeError(`successes ${c} must lie in 0..${n}`);
  return ratio(comb(c, k), comb(n, k));
}

/** pass@k of one task: 1 − C(n − c, k) / C(n, k) (Chen et al. 2021's unbiased estimator). */
export function passAtK(n: number, c: number, k: number): number {
  if (n < k) throw new RangeError(`Number of trials ${n} is less than k ${k}.`);
  if (c < 0 || c > n) throw new RangeError(`successes ${c} must lie in 0..${n}`);
  return 1 - ratio(comb(n - c, k), comb(n, k));
}

const mean = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

function meanComponents(trials: EvalTrial[]): Record<string, number> {
  const sums = new Map<string, { total: number; n: number }>();
  for (const t of trials) {
    for (const [k, v] of Object.entries(t.components ?? {})) {
      if (typeof v !== "number" || !Number.isFinite(v)) continue;
      const e = sums.get(k) ?? { total: 0, n: 0 };
      e.total += v;
      e.n++;
      sums.set(k, e);
    }
  }
  return Object.fromEntries([...sums].sort(([a], [b]) => a.localeCompare(b)).map(([k, e]) => [k, e.total / e.n]));
}

/** Per-task and overall scores of an evaluation's trials; tasks keep the order of their first trial. */
export function summariseTrials(
  trials: readonly EvalTrial[],
  rule: SuccessRule = REWARD_ONE,
  /** What the run's calls outside any recorded trial cost (tasks cut short): counted in costUsd. */
  unattachedCostUsd = 0,
): EvalSummary {
  const succeeded = (t: EvalTrial) => t.reward !== null && Number.isFinite(t.reward) && rule.success(t.reward, t.components ?? {});
  const byTask = new Map<string, EvalTrial[]>();
  for (const t of trials) byTask.set(t.taskId, [...(byTask.get(t.taskId) ?? []), t]);
  const perTask: TaskScore[] = [...byTask].map(([taskId, all]) => {
    const scored = all.filter((t) => t.reward !== null && Number.isFinite(t.reward));
    const n = scored.length;
    const c = scored.filter(succeeded).length;
    return {
      taskId,
      trials: n,
      successes: c,
      unscored: all.length - n,
      rewardMean: mean(scored.map((t) => t.reward as number)),
      passHat: Array.from({ length: n }, (_, i) => passHatK(n, c, i + 1)),
      costUsd: all.reduce((s, t) => s + (t.costUsd ?? 0), 0),
      components: meanComponents(scored),
    };
  });
  const scoredTasks = perTask.filter((t) => t.trials > 0);
  const maxK = scoredTasks.length ? Math.min(...scoredTasks.map((t) => t.trials)) : 0;
  const passHat: Record<number, number> = {};
  const passAt: Record<number, number> = {};
  for (let k = 1; k <= maxK; k++) {
    passHat[k] = mean(scoredTasks.map((t) => passHatK(t.trials, t.successes, k))) as number;
    passAt[k] = mean(scoredTasks.map((t) => passAtK(t.trials, t.successes, k))) as number;
  }
  const scoredTrials = trials.filter((t) => t.reward !== null && Number.isFinite(t.reward));
  const trialCost = trials.reduce((s, t) => s + (t.costUsd ?? 0), 0);
  const costUsd = trialCost + unattachedCostUsd;
  return {
    tasks: scoredTasks.length,
    trials: scoredTrials.length,
    unscored: trials.length - scoredTrials.length,
    maxK,
    rewardMean: mean(scoredTrials.map((t) => t.reward as number)),
    passHat,
    passAt,
    costUsd,
    unattachedCostUsd,
    costPerTrial: trials.length ? trialCost / trials.length : null,
    components: meanComponents(scoredTrials),
    perTask,
    successRule: rule.text,
    unscoredCauses: countCauses(trials),
  };
}

function countCauses(trials: readonly EvalTrial[]): Partial<Record<UnscoredCause, number>> {
  const out: Partial<Record<UnscoredCause, number>> = {};
  for (const t of trials) if (t.unscoredCause) out[t.unscoredCause] = (out[t.unscoredCause] ?? 0) + 1;
  return out;
}

/**
 * The summary as metric points (stable keys the run page, compare and CI read): eval/pass@1, eval/pass^k for every
 * k, eval/pass@k, eval/reward_mean, eval/reward/<component>, eval/tasks, eval/trials, eval/unscored, eval/cost_usd.
 */
export function evalSummaryMetrics(s: EvalSummary): Record<string, number> {
  const out: Record<string, number> = {
    "eval/tasks": s.tasks,
    "eval/trials": s.trials,
    "eval/unscored": s.unscored,
    "eval/cost_usd": s.costUsd,
  };
  if (s.rewardMean !== null) out["eval/reward_mean"] = s.rewardMean;
  if (s.maxK >= 1) out["eval/pass@1"] = s.passHat[1];
  for (let k = 1; k <= s.maxK; k++) {
    out[`eval/pass^${k}`] = s.passHat[k];
    if (k > 1) out[`eval/pass@${k}`] = s.passAt[k];
  }
  // The key a training run's periodic evaluation writes (all of its k samples succeed): pass^k at the largest k.
  if (s.maxK >= 1) out["eval/pass^k"] = s.passHat[s.maxK];
  for (const [name, v] of Object.entries(s.components)) out[`eval/reward/${name}`] = v;
  return out;
}
