/**
 * Pure: the per-step metrics a person reads on the run page, computed from what the step produced. Keys are stable
 * and slash-namespaced (GUIDE "Conventions"); a value that cannot be computed (no scored trajectory, no LLM call of
 * a role) is left out rather than written as 0, so the chart shows a gap instead of a fake dip.
 */
import { LLM_ROLES, type LlmCallRecord } from "../../lib/conversation";
import type { GroupRecord, TrajectoryRecord } from "./step-record";

export interface StepTimings {
  rollout_s?: number;
  reward_s?: number;
  update_s?: number;
  checkpoint_s?: number;
  /** The whole step before its recording. */
  step_s?: number;
}

export interface SummariseStepInput {
  /** The step's train groups (eval groups are summarised by summariseEval). */
  groups: GroupRecord[];
  /** Update metrics already under dashboard keys (e.g. "loss/policy", "clip/frac_high", "kl", "entropy"). */
  update?: Record<string, number>;
  timings?: StepTimings;
}

export type MetricMap = Record<string, number>;

function stats(values: number[]): { mean: number; std: number; min: number; max: number } | null {
  if (values.length === 0) return null;
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length;
  return { mean, std: Math.sqrt(variance), min: Math.min(...values), max: Math.max(...values) };
}

/** Nearest-rank percentile (p in [0, 100]) of a non-empty list. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

function putStats(out: MetricMap, prefix: string, values: number[]): void {
  const s = stats(values);
  if (!s) return;
  out[`${prefix}/mean`] = s.mean;
  out[`${prefix}/std`] = s.std;
  out[`${prefix}/min`] = s.min;
  out[`${prefix}/max`] = s.max;
}

/** Format errors and environment error notices count as tool errors: both mean a call the env could not serve. */
function countToolErrors(t: TrajectoryRecord): number {
  return t.conversation.filter((m) => m.formatError !== undefined || (m.source === "environment" && /error/i.test(m.content))).length;
}

/** Per-role LLM usage: calls (attempts), latency percentiles, tokens and cost. */
export function summariseLlmCalls(calls: LlmCallRecord[]): MetricMap {
  const out: MetricMap = {};
  for (const role of LLM_ROLES) {
    const mine = calls.filter((c) => c.role === role);
    if (mine.length === 0) continue;
    const latencies = mine.map((c) => c.latencyMs);
    out[`llm/${role}/calls`] = mine.length;
    out[`llm/${role}/latency_p50_ms`] = percentile(latencies, 50);
    out[`llm/${role}/latency_p95_ms`] = percentile(latencies, 95);
    out[`llm/${role}/tokens`] = mine.reduce((s, c) => s + c.promptTokens + c.completionTokens, 0);
    out[`llm/${role}/cost_usd`] = mine.reduce((s, c) => s + c.costUsd, 0);
  }
  return out;
}

export function summariseStep(input: SummariseStepInput): MetricMap {
  const out: MetricMap = {};
  const trajectories = input.groups.flatMap((g) => g.trajectories);
  const scored = trajectories.filter((t): t is TrajectoryRecord & { reward: number } => t.reward !== null && Number.isFinite(t.reward));

  putStats(
    out,
    "reward",
    scored.map((t) => t.reward),
  );
  const componentNames = [...new Set(scored.flatMap((t) => Object.keys(t.components)))].sort();
  for (const name of componentNames) {
    const values = scored.map((t) => t.components[name]).filter((v): v is number => typeof v === "number" && Number.isFinite(v));
    if (values.length) out[`reward/${name}`] = values.reduce((s, v) => s + v, 0) / values.length;
  }
  // DAPO (Yu et al. 2025, sec. 3.2): a group whose scored rewards are all equal has zero advantage everywhere and
  // contributes no gradient; the fraction of such groups says how much of the batch was wasted.
  const groupsWithScores = input.groups.filter((g) => g.trajectories.some((t) => t.reward !== null));
  if (groupsWithScores.length) {
    const flat = groupsWithScores.filter((g) => {
      const r = g.trajectories.filter((t) => t.reward !== null).map((t) => t.reward as number);
      return Math.max(...r) - Math.min(...r) < 1e-9;
    });
    out["reward/zero_variance_group_frac"] = flat.length / groupsWithScores.length;
  }

  putStats(
    out,
    "adv",
    trajectories.map((t) => t.advantage).filter((a): a is number => a !== null && Number.isFinite(a)),
  );

  if (trajectories.length) {
    const lengths = trajectories.map((t) => t.responseTokens);
    out["response/length_mean"] = lengths.reduce((s, v) => s + v, 0) / lengths.length;
    out["response/length_max"] = Math.max(...lengths);
    out["env/turns_mean"] = trajectories.reduce((s, t) => s + t.numTurns, 0) / trajectories.length;
    out["env/tool_errors"] = trajectories.reduce((s, t) => s + countToolErrors(t), 0);
    out["env/unscored"] = trajectories.filter((t) => t.reward === null).length;
  }

  Object.assign(out, summariseLlmCalls(trajectories.flatMap((t) => t.llmCalls)));
  for (const [key, value] of Object.entries(input.update ?? {})) if (Number.isFinite(value)) out[key] = value;
  for (const [key, value] of Object.entries(input.timings ?? {}))
    if (value !== undefined && Number.isFinite(value)) out[`time/${key}`] = value;
  return out;
}

/**
 * Evaluation metrics over eval groups (one group per task, k samples each): mean reward, pass@1 (expected success
 * of one sample = mean per-sample success) and pass^k (tau-bench, Yao et al. 2024: all k samples of a task
 * succeed). A sample succeeds when its reward reaches `successThreshold`; unscorable samples count as failures for
 * pass^k (the task was not reliably solved) and are excluded from the reward mean.
 */
export function summariseEval(groups: GroupRecord[], successThreshold = 1 - 1e-6): MetricMap {
  const out: MetricMap = {};
  const rewards = groups.flatMap((g) => g.trajectories.map((t) => t.reward)).filter((r): r is number => r !== null && Number.isFinite(r));
  if (rewards.length) out["eval/reward_mean"] = rewards.reduce((s, v) => s + v, 0) / rewards.length;
  const withSamples = groups.filter((g) => g.trajectories.length > 0);
  if (withSamples.length) {
    const success = (r: number | null) => r !== null && r >= successThreshold;
    out["eval/pass@1"] =
      withSamples.reduce((s, g) => s + g.trajectories.filter((t) => success(t.reward)).length / g.trajectories.length, 0) /
      withSamples.length;
    out["eval/pass^k"] = withSamples.filter((g) => g.trajectories.every((t) => success(t.reward))).length / withSamples.length;
  }
  return out;
}
