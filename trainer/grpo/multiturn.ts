/**
 * Multi-turn credit assignment from UserRL (Salesforce, `verl/trainer/ppo/core_algos.py` @ cf55a30:
 * `compute_turn_credits`, `compute_grpo_multiturn_advantage`, estimator `grpo_multiturn`).
 *
 * Per trajectory with per-turn rewards r_0..r_{K-1}:
 * 1. Turn credits c_k (how the trajectory's advantage is shared between its turns), `TURN_CREDIT_METHODS`:
 *    `Equalized` c_k = 1; `R2G` reward-to-go c_k = r_k + gamma * c_{k+1}; `EM` exponential map of r_k into
 *    [0.5, 1] (k = 2), rounded to 4 decimals like upstream.
 * 2. Trajectory score S, `TRAJECTORY_SCORE_METHODS`: `Sum` (upstream @ cf55a30 takes the MEAN of the turn
 *    rewards, rounded to 4 decimals, despite the name) or `R2G` sum_k gamma^k r_k.
 * 3. S is normalised within its group exactly like outcome GRPO (unbiased std, eps, verl's singleton rule) -> n.
 * 4. Token level: a_t = c_{turn(t)} * mask_t, rescaled so the mean over the non-zero tokens equals n:
 *    a <- a * n * nnz(a) / sum(a) (all zeros when sum(a) == 0). So a turn's advantage depends on how many tokens
 *    each turn has; `computeTurnAdvantages` takes those counts and returns the value every token of a turn gets.
 *
 * Shapes: turnRewards [K] per trajectory; tokenTurnIds / mask [T] per trajectory row (turn id -1 = not a policy
 * turn token).
 */
import { computeGroupAdvantages, type GroupStats } from "./advantages";
import { pickByName } from "./registry";
import { pythonRound } from "../../lib/python-json";

export type TurnCreditFn = (turnRewards: readonly number[], gamma: number) => number[];
export type TrajectoryScoreFn = (turnRewards: readonly number[], gamma: number) => number;

/** Python's `round(x, 4)`, as UserRL rounds: the exact binary value, ties to even (0.28125 → 0.2812). */
const round4 = (x: number): number => pythonRound(x, 4);

function rewardToGo(turnRewards: readonly number[], gamma: number): number[] {
  const credits = new Array<number>(turnRewards.length).fill(0);
  let next = 0;
  for (let k = turnRewards.length - 1; k >= 0; k--) {
    credits[k] = k === turnRewards.length - 1 ? turnRewards[k] : turnRewards[k] + gamma * next;
    next = credits[k];
  }
  return credits;
}

/** UserRL `map_reward`: 0 -> 0.5, 1 -> 1, concave in between, so even unrewarded turns keep half the credit. */
function exponentialMap(reward: number, k = 2): number {
  return 0.5 + (0.5 * (1 - Math.exp(-k * reward))) / (1 - Math.exp(-k));
}

export const TURN_CREDIT_METHODS: Readonly<Record<string, TurnCreditFn>> = {
  Equalized: (r) => r.map(() => 1),
  R2G: (r, gamma) => rewardToGo(r, gamma),
  EM: (r) => r.map((x) => round4(exponentialMap(x))),
};

export const TRAJECTORY_SCORE_METHODS: Readonly<Record<string, TrajectoryScoreFn>> = {
  Sum: (r) => (r.length ? round4(r.reduce((a, b) => a + b, 0) / r.length) : 0),
  R2G: (r, gamma) => r.reduce((acc, x, k) => acc + Math.pow(gamma, k) * x, 0),
};

export function computeTurnCredits(turnRewards: readonly number[], method: string, gamma: number): number[] {
  return pickByName(TURN_CREDIT_METHODS, method, "turn credit method")(turnRewards, gamma);
}

export function computeTrajectoryScore(turnRewards: readonly number[], method: string, gamma: number): number {
  return pickByName(TRAJECTORY_SCORE_METHODS, method, "trajectory score method")(turnRewards, gamma);
}

export interface MultiTurnOptions {
  turnCredit: string;
  trajectoryScore: string;
  /** UserRL default 0.8. */
  gamma?: number;
  /** UserRL default 1e-6. */
  epsilon?: number;
  /** verl `norm_adv_by_std_in_grpo`; default true. */
  normalizeByStd?: boolean;
}

export interface MultiTurnTrajectoryCredit {
  /** Trajectory score S (null when unscorable). */
  score: number | null;
  /** Group-normalised score n (0 when unscorable). */
  normalizedScore: number;
  /** Turn credits c_k ([] when unscorable). */
  turnCredits: number[];
}

export interface MultiTurnResult {
  trajectories: MultiTurnTrajectoryCredit[];
  groups: GroupStats[];
}

/**
 * Scores, group-normalises and assigns turn credits for a batch of trajectories.
 * `turnRewards[i] === null` marks an unscorable trajectory: excluded from its group's statistics, advantage 0.
 */
export function computeMultiTurnCredits(
  turnRewards: readonly (readonly number[] | null)[],
  groupIds: readonly (string | number)[],
  opts: MultiTurnOptions,
): MultiTurnResult {
  const gamma = opts.gamma ?? 0.8;
  const scores = turnRewards.map((r) => (r === null ? null : computeTrajectoryScore(r, opts.trajectoryScore, gamma)));
  const credits = turnRewards.map((r) => (r === null ? [] : computeTurnCredits(r, opts.turnCredit, gamma)));
  const normalized = computeGroupAdvantages(scores, groupIds, {
    estimator: opts.normalizeByStd === false ? "drgrpo" : "grpo",
    epsilon: opts.epsilon ?? 1e-6,
  });
  return {
    trajectories: scores.map((score, i) => ({
      score,
      normalizedScore: normalized.advantages[i],
      turnCredits: credits[i],
    })),
    groups: normalized.groups,
  };
}

/**
 * The advantage every policy token of turn k receives, given the number of policy (mask = 1) tokens per turn.
 * Equals UserRL's token-level rescaling: c_k * n * nnz / sum_j(c_j * count_j), nnz = tokens of turns with c_j != 0.
 */
export function computeTurnAdvantages(turnCredits: readonly number[], normalizedScore: number, tokensPerTurn: readonly number[]): number[] {
  let weightedSum = 0;
  let nonZeroTokens = 0;
  turnCredits.forEach((c, k) => {
    const count = tokensPerTurn[k] ?? 0;
    weightedSum += c * count;
    if (c !== 0) nonZeroTokens += count;
  });
  if (weightedSum === 0) return turnCredits.map(() => 0);
  const scale = (normalizedScore * nonZeroTokens) / weightedSum;
  return turnCredits.map((c) => c * scale);
}

/** Number of mask = 1 tokens of each turn 0..numTurns-1 in a token row. */
export function countTokensPerTurn(tokenTurnIds: readonly number[], mask: readonly number[] | undefined, numTurns: number): number[] {
  const counts = new Array<number>(numTurns).fill(0);
  tokenTurnIds.forEach((turn, t) => {
    if (turn >= 0 && turn < numTurns && (mask === undefined || mask[t] !== 0)) counts[turn] += 1;
  });
  return counts;
}

/** Token-level advantage row [T]: token t gets turnAdvantages[turn(t)] if it is a policy token, else 0. */
export function expandTurnAdvantagesToTokens(
  turnAdvantages: readonly number[],
  tokenTurnIds: readonly number[],
  mask?: readonly number[],
): number[] {
  return tokenTurnIds.map((turn, t) => {
    if (turn < 0 || turn >= turnAdvantages.length) return 0;
    if (mask !== undefined && mask[t] === 0) return 0;
    return turnAdvantages[turn];
  });
}

/**
 * Turn id per token from UserRL's `turn_boundaries` row (1 at the first token of each turn). Tokens before the
 * first boundary get -1; with no boundary at all upstream treats the whole row as turn 0.
 */
export function turnIdsFromBoundaries(boundaries: readonly number[]): number[] {
  if (!boundaries.some((b) => b === 1)) return boundaries.map(() => 0);
  let turn = -1;
  return boundaries.map((b) => (b === 1 ? ++turn : turn));
}

/** Convenience for one row: turn credits + normalised score + turn ids/mask -> token advantages [T]. */
export function computeMultiTurnTokenAdvantages(
  credit: MultiTurnTrajectoryCredit,
  tokenTurnIds: readonly number[],
  mask?: readonly number[],
): number[] {
  const counts = countTokensPerTurn(tokenTurnIds, mask, credit.turnCredits.length);
  const perTurn = computeTurnAdvantages(credit.turnCredits, credit.normalizedScore, counts);
  return expandTurnAdvantagesToTokens(perTurn, tokenTurnIds, mask);
}
