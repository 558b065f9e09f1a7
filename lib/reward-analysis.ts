/**
 * Pure reward-debugging arithmetic (no I/O): comparing two scorings of the same trajectories, judge reliability from
 * repeated judgements, and per-component reward analysis. The server feeds these stored rows; the dashboard shows
 * the results. Signals (reward hacking, simulator failures) are in lib/reward-signals.ts.
 *
 * Why this matters: with an LLM judge and an LLM-simulated user, a rising reward can be a better policy, a noisy
 * judge, or a policy pleasing the judge — τ²-bench reports 8-9 points of run-to-run noise, so a difference smaller
 * than the judge's own noise floor is not evidence of anything.
 */

/** Reward at or above this counts as a "pass" verdict (binary judges give 0/1; Simia-RL's judge is 0/1). */
export const VERDICT_THRESHOLD = 0.5;

export function verdictOf(reward: number | null, threshold = VERDICT_THRESHOLD): boolean | null {
  return reward === null || !Number.isFinite(reward) ? null : reward >= threshold;
}

export interface ScoredPair {
  trajectoryId: string;
  oldReward: number | null;
  newReward: number | null;
}

export type FlipKind = "pass_to_fail" | "fail_to_pass" | "became_unscored" | "became_scored";

export interface ScoringComparison {
  /** Trajectories with a numeric reward under both scorings. */
  compared: number;
  agreed: number;
  /** agreed / compared; null when nothing could be compared. */
  agreementRate: number | null;
  flips: { trajectoryId: string; kind: FlipKind }[];
  meanOld: number | null;
  meanNew: number | null;
  meanAbsDelta: number | null;
}

function meanOf(values: number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Old vs new verdict per trajectory. Unscored on either side is never counted as 0 — it is its own kind of change. */
export function compareScorings(pairs: ScoredPair[], threshold = VERDICT_THRESHOLD): ScoringComparison {
  let compared = 0;
  let agreed = 0;
  const flips: ScoringComparison["flips"] = [];
  const deltas: number[] = [];
  for (const p of pairs) {
    const a = verdictOf(p.oldReward, threshold);
    const b = verdictOf(p.newReward, threshold);
    if (a === null || b === null) {
      if (a !== null && b === null) flips.push({ trajectoryId: p.trajectoryId, kind: "became_unscored" });
      if (a === null && b !== null) flips.push({ trajectoryId: p.trajectoryId, kind: "became_scored" });
      continue;
    }
    compared++;
    deltas.push(Math.abs((p.newReward as number) - (p.oldReward as number)));
    if (a === b) agreed++;
    else flips.push({ trajectoryId: p.trajectoryId, kind: a ? "pass_to_fail" : "fail_to_pass" });
  }
  const nums = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null && Number.isFinite(x));
  return {
    compared,
    agreed,
    agreementRate: compared === 0 ? null : agreed / compared,
    flips,
    meanOld: meanOf(nums(pairs.map((p) => p.oldReward))),
    meanNew: meanOf(nums(pairs.map((p) => p.newReward))),
    meanAbsDelta: meanOf(deltas),
  };
}

export interface ReliabilityReport {
  /** Trajectories judged at least twice. */
  trajectories: number;
  samplesPerTrajectory: number;
  /** Mean share of a trajectory's judgements agreeing with its majority verdict (1 = the judge never wavers). */
  meanAgreement: number | null;
  /** Mean within-trajectory standard deviation of the reward (population, over its k judgements). */
  meanStd: number | null;
  /** Share of trajectories whose k judgements did not all give the same verdict. */
  unstableShare: number | null;
  /**
   * Standard error the judge alone adds to a step's mean reward over `perStep` trajectories: sqrt(mean within-
   * trajectory variance / perStep). Differences in reward/mean below ~2× this are within judge noise.
   */
  noiseFloor: number | null;
  perStep: number;
}

/** `samples[i]` are the k rewards one trajectory got (nulls = unscored judgements, left out). */
export function judgeReliability(samples: (number | null)[][], perStep: number, threshold = VERDICT_THRESHOLD): ReliabilityReport {
  const rows = samples.map((s) => s.filter((x): x is number => x !== null && Number.isFinite(x))).filter((s) => s.length >= 2);
  const k = rows.length ? Math.max(...rows.map((r) => r.length)) : 0;
  if (rows.length === 0)
    return { trajectories: 0, samplesPerTrajectory: k, meanAgreement: null, meanStd: null, unstableShare: null, noiseFloor: null, perStep };
  let agreementSum = 0;
  let varianceSum = 0;
  let stdSum = 0;
  let unstable = 0;
  for (const r of rows) {
    const passes = r.filter((x) => x >= threshold).length;
    agreementSum += Math.max(passes, r.length - passes) / r.length;
    if (passes !== 0 && passes !== r.length) unstable++;
    const m = r.reduce((a, b) => a + b, 0) / r.length;
    const v = r.reduce((a, b) => a + (b - m) ** 2, 0) / r.length;
    varianceSum += v;
    stdSum += Math.sqrt(v);
  }
  const n = rows.length;
  return {
    trajectories: n,
    samplesPerTrajectory: k,
    meanAgreement: agreementSum / n,
    meanStd: stdSum / n,
    unstableShare: unstable / n,
    noiseFloor: Math.sqrt(varianceSum / n / Math.max(1, perStep)),
    perStep,
  };
}

/** Verdict agreement between two scorers on the trajectories both scored (e.g. two judge models). */
export function pairwiseAgreement(
  a: Map<string, number | null>,
  b: Map<string, number | null>,
  threshold = VERDICT_THRESHOLD,
): { compared: number; agreementRate: number | null } {
  let compared = 0;
  let agreed = 0;
  for (const [id, ra] of a) {
    if (!b.has(id)) continue;
    const va = verdictOf(ra, threshold);
    const vb = verdictOf(b.get(id) ?? null, threshold);
    if (va === null || vb === null) continue;
    compared++;
    if (va === vb) agreed++;
  }
  return { compared, agreementRate: compared ? agreed / compared : null };
}

// ---- per-component analysis -------------------------------------------------------------------------------

export interface ComponentRow {
  id: string;
  step: number;
  reward: number | null;
  components: Record<string, unknown>;
}

export interface ComponentStep {
  step: number;
  rewardMean: number | null;
  /** Mean of each component at this step (null when no trajectory of the step has it). */
  means: Record<string, number | null>;
}

export interface ComponentAnalysis {
  components: string[];
  /**
   * "unit" when every value of the component is in [0, 1] (drawn with the reward), else "count" (turns, tool errors:
   * drawn on their own axis; on the reward's 0–1 axis a count of 4 flattened every reward curve).
   */
  scales: Record<string, "unit" | "count">;
  /** The steps the analysis covers (the most recent trajectories only when the run has more than the cap). */
  window: { firstStep: number | null; lastStep: number | null; trajectories: number };
  steps: ComponentStep[];
  /**
   * Pearson correlation of each component with the total reward over the scored trajectories, in [−1, 1]: near 1 the
   * component moves with the reward, near 0 it does not drive it, negative it works against it. (Shares of variance,
   * cov / var, were shown before: with correlated components or counters such as tool_errors they left [0, 1] and
   * read as 102% or −2000%. A correlation is always readable.) null when either side is constant.
   */
  correlations: Record<string, number | null>;
  /** Trajectories where one component says "good" (≥ 0.5) and another says "bad" (< 0.5), largest spread first. */
  disagreements: { trajectoryId: string; step: number; reward: number | null; high: string[]; low: string[]; spread: number }[];
}

/** Components that describe the judge rather than the episode are not reward components. */
const NOT_A_COMPONENT = new Set(["judge_agreement"]);

function numericComponents(c: Record<string, unknown>): [string, number][] {
  return Object.entries(c).filter(
    (e): e is [string, number] => typeof e[1] === "number" && Number.isFinite(e[1]) && !NOT_A_COMPONENT.has(e[0]),
  );
}

/** Pearson correlation; null with fewer than 2 points or when either side is constant. */
export function pearson(xs: number[], ys: number[]): number | null {
  if (xs.length < 2 || xs.length !== ys.length) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

export function analyseComponents(rows: ComponentRow[], disagreementLimit = 50): ComponentAnalysis {
  const names = [...new Set(rows.flatMap((r) => numericComponents(r.components).map(([k]) => k)))].sort();
  const bySteps = new Map<number, ComponentRow[]>();
  for (const r of rows) bySteps.set(r.step, [...(bySteps.get(r.step) ?? []), r]);
  const steps: ComponentStep[] = [...bySteps.keys()]
    .sort((a, b) => a - b)
    .map((step) => {
      const rs = bySteps.get(step)!;
      const means: Record<string, number | null> = {};
      for (const name of names) means[name] = meanOf(rs.map((r) => r.components[name]).filter((v): v is number => typeof v === "number"));
      return { step, rewardMean: meanOf(rs.map((r) => r.reward).filter((v): v is number => v !== null)), means };
    });

  const scored = rows.filter((r) => r.reward !== null);
  const correlations: Record<string, number | null> = {};
  for (const name of names) {
    const both = scored.filter((r) => typeof r.components[name] === "number");
    correlations[name] = pearson(
      both.map((r) => r.components[name] as number),
      both.map((r) => r.reward as number),
    );
  }

  const disagreements: ComponentAnalysis["disagreements"] = [];
  for (const r of rows) {
    const cs = numericComponents(r.components).filter(([, v]) => v >= 0 && v <= 1);
    const high = cs.filter(([, v]) => v >= VERDICT_THRESHOLD).map(([k]) => k);
    const low = cs.filter(([, v]) => v < VERDICT_THRESHOLD).map(([k]) => k);
    if (high.length && low.length) {
      const values = cs.map(([, v]) => v);
      disagreements.push({
        trajectoryId: r.id,
        step: r.step,
        reward: r.reward,
        high,
        low,
        spread: Math.max(...values) - Math.min(...values),
      });
    }
  }
  disagreements.sort((a, b) => b.spread - a.spread || a.step - b.step);
  const scales: ComponentAnalysis["scales"] = {};
  for (const name of names)
    scales[name] = rows.every((r) => {
      const v = r.components[name];
      return typeof v !== "number" || !Number.isFinite(v) || (v >= 0 && v <= 1);
    })
      ? "unit"
      : "count";
  const window = { firstStep: steps[0]?.step ?? null, lastStep: steps[steps.length - 1]?.step ?? null, trajectories: rows.length };
  return { components: names, scales, window, steps, correlations, disagreements: disagreements.slice(0, disagreementLimit) };
}
