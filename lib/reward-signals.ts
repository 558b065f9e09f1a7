/**
 * Reward-hacking and simulator-failure signals, computed per step from stored rows (pure; the server feeds them).
 * Each signal is a warning a person can check: it names the step and links example trajectories.
 *
 * The checks follow the failure modes reported for LLM-judged multi-turn RL: a judge pleased while the database
 * says the task failed (τ²-bench grades on DB state for this reason), train reward rising while held-out reward
 * falls, response length / turn count drifting (a classic sign of gaming a length-biased judge), collapsed groups
 * of near-identical samples, and episodes the simulated user ended early or broke — τ² traces up to 30% of failed
 * trajectories to the user simulator, so simulator errors piling up in low-reward episodes mean the *simulator*,
 * not the policy, is being measured.
 */
import { VERDICT_THRESHOLD } from "./reward-analysis";
import { canonicalJson } from "./canonical-json";

export type SignalKind =
  | "judge_high_check_fails"
  | "judge_low_check_passes"
  | "reward_up_eval_down"
  | "length_drift"
  | "turns_drift"
  | "near_identical_group"
  | "abnormal_ending"
  | "simulator_errors_in_low_reward";

export interface Signal {
  kind: SignalKind;
  /** Step it concerns; null for a whole-run signal. */
  step: number | null;
  title: string;
  detail: string;
  /** Up to five trajectories to open. */
  examples: string[];
}

export interface SignalTrajectory {
  id: string;
  step: number;
  groupId: string;
  reward: number | null;
  status: string;
  endReason: string | null;
  numTurns: number;
  finalState: unknown;
  expectedState: unknown;
  /** The policy's messages, concatenated (for near-duplicate detection). */
  policyText: string;
  formatErrors: number;
  /** Failed user/tool simulator LLM calls made during this episode. */
  simulatorErrors: number;
}

export interface SeriesPoint {
  step: number;
  value: number;
}

const EXAMPLES = 5;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The programmatic check: does the final state equal the expected one? Only when both describe the same thing
 * (same top-level keys) — some environments store a *spec* as expected state (calls to make), not a state, and
 * comparing those would flag everything. null = no programmatic check available.
 */
export function programmaticCheck(t: Pick<SignalTrajectory, "finalState" | "expectedState" | "formatErrors" | "status">): boolean | null {
  if (t.status === "error") return false;
  if (t.formatErrors > 0) return false;
  const f = t.finalState;
  const e = t.expectedState;
  if (!isPlainObject(f) || !isPlainObject(e)) return null;
  if (canonicalJson(Object.keys(f).sort()) !== canonicalJson(Object.keys(e).sort())) return null;
  return canonicalJson(f) === canonicalJson(e);
}

function byStep<T extends { step: number }>(rows: T[]): Map<number, T[]> {
  const m = new Map<number, T[]>();
  for (const r of rows) {
    const list = m.get(r.step);
    if (list) list.push(r);
    else m.set(r.step, [r]);
  }
  return new Map([...m.entries()].sort((a, b) => a[0] - b[0]));
}

export function judgeCheckMismatches(trajs: SignalTrajectory[]): Signal[] {
  const out: Signal[] = [];
  for (const [step, rows] of byStep(trajs)) {
    const scored = rows.filter((t) => t.reward !== null).map((t) => ({ t, check: programmaticCheck(t) }));
    const high = scored.filter(({ t, check }) => (t.reward as number) >= VERDICT_THRESHOLD && check === false).map(({ t }) => t);
    const low = scored.filter(({ t, check }) => (t.reward as number) < VERDICT_THRESHOLD && check === true).map(({ t }) => t);
    if (high.length) {
      out.push({
        kind: "judge_high_check_fails",
        step,
        title: "Judge rewards what the programmatic check fails",
        detail: `${high.length} of ${rows.length} trajectories got a passing reward although the final state / format check failed — the policy may be pleasing the judge.`,
        examples: high.slice(0, EXAMPLES).map((t) => t.id),
      });
    }
    if (low.length) {
      out.push({
        kind: "judge_low_check_passes",
        step,
        title: "Judge fails what the programmatic check passes",
        detail: `${low.length} of ${rows.length} trajectories reached the expected state but got a failing reward — the judge may be too strict or noisy.`,
        examples: low.slice(0, EXAMPLES).map((t) => t.id),
      });
    }
  }
  return out;
}

/**
 * Mean of the last `window` points at or before a step, for many steps: prefix sums and a binary search, so a
 * 100k-step train series against 10k evaluations is linear, not 10k scans of the whole series.
 */
function trailingMeans(sorted: SeriesPoint[], window: number): (step: number) => number | null {
  const prefix = [0];
  for (const p of sorted) prefix.push(prefix[prefix.length - 1] + p.value);
  return (step) => {
    let lo = 0;
    let hi = sorted.length; // first index with step > `step`
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid].step <= step) lo = mid + 1;
      else hi = mid;
    }
    const from = Math.max(0, lo - window);
    return lo === 0 ? null : (prefix[lo] - prefix[from]) / (lo - from);
  };
}

/** Between consecutive evaluations: train reward (smoothed over `window` steps) up while eval reward went down. */
export function rewardEvalDivergence(train: SeriesPoint[], evalSeries: SeriesPoint[], minDelta = 0.03, window = 3): Signal[] {
  const meanUpTo = trailingMeans(
    [...train].sort((a, b) => a.step - b.step),
    window,
  );
  const e = [...evalSeries].sort((a, b) => a.step - b.step);
  const out: Signal[] = [];
  for (let i = 1; i < e.length; i++) {
    const a = meanUpTo(e[i - 1].step);
    const b = meanUpTo(e[i].step);
    if (a === null || b === null) continue;
    const trainDelta = b - a;
    const evalDelta = e[i].value - e[i - 1].value;
    if (trainDelta > minDelta && evalDelta < -minDelta) {
      out.push({
        kind: "reward_up_eval_down",
        step: e[i].step,
        title: "Train reward rising while eval reward falls",
        detail: `Steps ${e[i - 1].step}→${e[i].step}: train reward ${trainDelta >= 0 ? "+" : ""}${trainDelta.toFixed(3)}, eval reward ${evalDelta.toFixed(3)} — gains may not generalise (overfitting or judge exploitation).`,
        examples: [],
      });
    }
  }
  return out;
}

/** Steps where a per-step metric jumps more than `relative` away from the median of the previous `window` steps. */
export function sharpDrift(series: SeriesPoint[], kind: "length_drift" | "turns_drift", relative = 0.5, window = 5): Signal[] {
  const s = [...series].sort((a, b) => a.step - b.step);
  const out: Signal[] = [];
  for (let i = window; i < s.length; i++) {
    const prev = s
      .slice(i - window, i)
      .map((p) => p.value)
      .sort((a, b) => a - b);
    const median = prev[Math.floor(prev.length / 2)];
    const change = (s[i].value - median) / Math.max(Math.abs(median), 1e-9);
    if (Math.abs(change) > relative) {
      const what = kind === "length_drift" ? "Response length" : "Turn count";
      out.push({
        kind,
        step: s[i].step,
        title: `${what} drifted sharply`,
        detail: `${what} ${s[i].value.toFixed(1)} vs a median of ${median.toFixed(1)} over the previous ${window} steps (${change > 0 ? "+" : ""}${Math.round(change * 100)}%).`,
        examples: [],
      });
    }
  }
  return out;
}

function shingles(text: string): Set<string> {
  const words = text.toLowerCase().replace(/\s+/g, " ").trim().split(" ").filter(Boolean);
  if (words.length < 3) return new Set([words.join(" ")]);
  const out = new Set<string>();
  for (let i = 0; i + 3 <= words.length; i++) out.add(words.slice(i, i + 3).join(" "));
  return out;
}

/** Jaccard similarity of word 3-grams (1 = same text up to case and spacing). */
export function textSimilarity(a: string, b: string): number {
  return shingleSimilarity(shingles(a), shingles(b));
}

function shingleSimilarity(sa: Set<string>, sb: Set<string>): number {
  let inter = 0;
  for (const x of sa) if (sb.has(x)) inter++;
  const union = sa.size + sb.size - inter;
  return union === 0 ? 1 : inter / union;
}

/** Groups where at least `share` of the samples have a near-identical sibling (GRPO then learns ~nothing from them). */
export function nearIdenticalGroups(trajs: SignalTrajectory[], share = 0.75, similarity = 0.9): Signal[] {
  const groups = new Map<string, SignalTrajectory[]>();
  for (const t of trajs) {
    const list = groups.get(t.groupId);
    if (list) list.push(t);
    else groups.set(t.groupId, [t]);
  }
  const flagged = new Map<number, { groups: number; examples: string[]; total: number }>();
  for (const rows of groups.values()) {
    const step = rows[0].step;
    const entry = flagged.get(step) ?? { groups: 0, examples: [], total: 0 };
    entry.total++;
    flagged.set(step, entry);
    if (rows.length < 2) continue;
    const sets = rows.map((t) => shingles(t.policyText));
    const dup = rows.filter((_, i) => sets.some((other, j) => i !== j && shingleSimilarity(sets[i], other) >= similarity));
    if (dup.length >= Math.max(2, Math.ceil(share * rows.length))) {
      entry.groups++;
      entry.examples.push(dup[0].id);
    }
  }
  const out: Signal[] = [];
  for (const [step, e] of [...flagged.entries()].sort((a, b) => a[0] - b[0])) {
    if (e.groups === 0) continue;
    out.push({
      kind: "near_identical_group",
      step,
      title: "Near-identical responses within groups",
      detail: `${e.groups} of ${e.total} groups have ≥${Math.round(share * 100)}% near-identical samples: little diversity for GRPO to compare (entropy collapse or a degenerate answer).`,
      examples: e.examples.slice(0, EXAMPLES),
    });
  }
  return out;
}

/** Why an episode counts as ended early or abnormally, or null when it ended normally. */
export function abnormalEnding(t: Pick<SignalTrajectory, "status" | "endReason" | "numTurns">): string | null {
  if (t.status === "error" || t.endReason === "error") return "environment error";
  if (t.endReason === "max_sim_steps") return "simulator step budget exhausted";
  if (t.endReason === "context_full") return "the policy's context window filled up";
  if (t.endReason === "user_done" && t.numTurns <= 1) return "the simulated user ended after at most one agent turn";
  return null;
}

export function abnormalEndings(trajs: SignalTrajectory[], minShare = 0.1): Signal[] {
  const out: Signal[] = [];
  for (const [step, rows] of byStep(trajs)) {
    const bad = rows.map((t) => ({ t, why: abnormalEnding(t) })).filter((x) => x.why !== null);
    if (bad.length === 0 || bad.length / rows.length < minShare) continue;
    const reasons = [...new Set(bad.map((b) => b.why))].join("; ");
    out.push({
      kind: "abnormal_ending",
      step,
      title: "Episodes ended early or abnormally",
      detail: `${bad.length} of ${rows.length} episodes: ${reasons}. Their rewards measure the simulator, not the policy.`,
      examples: bad.slice(0, EXAMPLES).map((b) => b.t.id),
    });
  }
  return out;
}

/** Per step: failed simulator calls much more common in low-reward than in high-reward trajectories. */
export function simulatorErrorConcentration(trajs: SignalTrajectory[], ratio = 2, minErrored = 2): Signal[] {
  const out: Signal[] = [];
  for (const [step, rows] of byStep(trajs)) {
    const scored = rows.filter((t) => t.reward !== null);
    const low = scored.filter((t) => (t.reward as number) < VERDICT_THRESHOLD);
    const high = scored.filter((t) => (t.reward as number) >= VERDICT_THRESHOLD);
    const erroredLow = low.filter((t) => t.simulatorErrors > 0);
    if (erroredLow.length < minErrored) continue;
    const lowRate = erroredLow.length / low.length;
    const highRate = high.length ? high.filter((t) => t.simulatorErrors > 0).length / high.length : 0;
    if (lowRate < ratio * highRate) continue;
    out.push({
      kind: "simulator_errors_in_low_reward",
      step,
      title: "Simulator errors concentrated in low-reward episodes",
      detail: `${Math.round(lowRate * 100)}% of low-reward episodes had a failed user/tool simulator call vs ${Math.round(highRate * 100)}% of high-reward ones: part of the low reward is the simulator failing, not the policy.`,
      examples: erroredLow.slice(0, EXAMPLES).map((t) => t.id),
    });
  }
  return out;
}

export interface SignalInput {
  trajectories: SignalTrajectory[];
  rewardSeries: SeriesPoint[];
  evalSeries: SeriesPoint[];
  lengthSeries: SeriesPoint[];
  turnsSeries: SeriesPoint[];
}

/** Every signal, ordered by step (whole-run signals first). */
export function computeSignals(input: SignalInput): Signal[] {
  const all = [
    ...simulatorErrorConcentration(input.trajectories),
    ...judgeCheckMismatches(input.trajectories),
    ...rewardEvalDivergence(input.rewardSeries, input.evalSeries),
    ...sharpDrift(input.lengthSeries, "length_drift"),
    ...sharpDrift(input.turnsSeries, "turns_drift"),
    ...nearIdenticalGroups(input.trajectories),
    ...abnormalEndings(input.trajectories),
  ];
  return all.sort((a, b) => (a.step ?? -1) - (b.step ?? -1));
}
