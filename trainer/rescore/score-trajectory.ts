/**
 * Scores one stored trajectory with a re-scoring job's scorer: an LLM judge (or the offline judge) through the
 * same runJudge path training uses — retries, zod-validated verdicts, null when unparseable, k samples — or a
 * re-weighting of the stored reward components (a different programmatic reward).
 */
import type { ScoreSample, Scorer, WeightsScorer } from "../../lib/rescoring-config";
import type { LlmChat } from "../envs/types";
import { runJudge } from "../judge/run-judge";
import { judgePromptFor, offlineJudgeFor, type StoredTrajectory } from "./rebuild-judge";

export interface TrajectoryScoreResult {
  reward: number | null;
  components: Record<string, number>;
  reasoning: string;
  samples: ScoreSample[];
  /** Share of the k judgements agreeing with the majority verdict (null with fewer than 2 scored judgements). */
  agreement: number | null;
  /** Population std of the k judgements' rewards (null with fewer than 2). */
  rewardStd: number | null;
  callIds: string[];
}

function populationStd(values: number[]): number | null {
  if (values.length < 2) return null;
  const m = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - m) ** 2, 0) / values.length);
}

export function scoreByWeights(traj: StoredTrajectory, scorer: WeightsScorer): TrajectoryScoreResult {
  const missing = Object.keys(scorer.weights).filter((k) => typeof traj.rewardComponents[k] !== "number");
  const base = { samples: [], agreement: null, rewardStd: null, callIds: [] };
  if (missing.length > 0) {
    const have = Object.keys(traj.rewardComponents).join(", ") || "none";
    return {
      ...base,
      reward: null,
      components: {},
      reasoning: `Unscored: component(s) ${missing.join(", ")} not recorded on this trajectory (it has: ${have}).`,
    };
  }
  const components: Record<string, number> = {};
  let reward = 0;
  for (const [k, w] of Object.entries(scorer.weights)) {
    components[k] = w * (traj.rewardComponents[k] as number);
    reward += components[k];
  }
  const terms = Object.entries(scorer.weights).map(([k, w]) => `${w} × ${k} (${traj.rewardComponents[k] as number})`);
  return { ...base, reward, components, reasoning: `Re-weighted: ${terms.join(" + ")} = ${Number(reward.toFixed(6))}.` };
}

export async function scoreTrajectory(
  traj: StoredTrajectory,
  task: unknown,
  scorer: Scorer,
  llm: LlmChat,
  noiseKey: string,
): Promise<TrajectoryScoreResult> {
  if (scorer.kind === "weights") return scoreByWeights(traj, scorer);
  const result = await runJudge({
    llm,
    messages: judgePromptFor(traj, task, scorer),
    offline: offlineJudgeFor(traj, task, scorer, noiseKey),
    samples: scorer.samples,
    maxAttempts: scorer.maxAttempts,
    aggregate: scorer.aggregate,
  });
  const samples = result.samples.map((s) => ({ reward: s.reward, reasoning: s.reasoning }));
  const scored = samples.map((s) => s.reward).filter((r): r is number => r !== null);
  return {
    reward: result.reward,
    components: result.components,
    reasoning: result.reasoning,
    samples,
    agreement: result.agreement,
    rewardStd: populationStd(scored),
    callIds: result.callIds,
  };
}
