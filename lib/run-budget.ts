/**
 * What a run config commits to, for the launch form's budget line: episodes and the most tokens the policy may
 * generate (every episode using every turn's full budget), evaluation episodes, and the SFT warm-up. Upper bounds
 * from the config alone; how long that takes depends on the worker's host (the pre-flight check times one step).
 */
import type { RunConfig } from "./run-config";

export interface RunBudget {
  steps: number;
  episodesPerStep: number;
  episodes: number;
  /** Upper bound: episodes × maxTurns × maxNewTokens. */
  maxGeneratedTokens: number;
  /** Evaluation passes over the run (every testFreq steps) and the episodes each plays at most. */
  evaluations: number;
  evaluationEpisodes: number;
  sftWarmupSteps: number;
}

export function runBudget(c: RunConfig): RunBudget {
  const episodesPerStep = c.grpo.groupsPerStep * c.grpo.groupSize;
  const episodes = c.grpo.steps * episodesPerStep;
  const evaluations = c.evaluation.testFreq > 0 ? Math.floor(c.grpo.steps / c.evaluation.testFreq) : 0;
  return {
    steps: c.grpo.steps,
    episodesPerStep,
    episodes,
    maxGeneratedTokens: episodes * c.rollout.maxTurns * c.rollout.maxNewTokens,
    evaluations,
    evaluationEpisodes: evaluations * c.evaluation.maxTasks * c.evaluation.samplesPerTask,
    sftWarmupSteps: c.grpo.sftWarmupSteps,
  };
}

const count = (n: number) => n.toLocaleString("en-US");

/** One line: "20 steps × 16 episodes (4 groups × 4) = 320 episodes; at most 983,040 generated tokens; …". */
export function describeBudget(c: RunConfig): string {
  if (c.eval) {
    const tasks = c.eval.tasks
      ? `${count(c.eval.tasks.length)} tasks`
      : c.eval.maxTasks
        ? `up to ${count(c.eval.maxTasks)} tasks`
        : "every selected task";
    return (
      [
        `Evaluation: ${tasks} × ${c.eval.k} trials, ${c.eval.concurrency} at once; nothing is trained`,
        `at most ${c.rollout.maxTurns} turns per episode`,
        c.eval.maxCostUsd !== undefined ? `stops at $${c.eval.maxCostUsd} of LLM cost` : "no cost ceiling",
      ].join("; ") + "."
    );
  }
  const b = runBudget(c);
  const parts = [
    `${count(b.steps)} steps × ${count(b.episodesPerStep)} episodes (${c.grpo.groupsPerStep} groups × ${c.grpo.groupSize}) = ${count(b.episodes)} training episodes`,
    `at most ${count(b.maxGeneratedTokens)} generated tokens (${c.rollout.maxTurns} turns × ${c.rollout.maxNewTokens} tokens each)`,
    b.evaluations > 0 ? `${b.evaluations} evaluations of up to ${count(b.evaluationEpisodes / b.evaluations)} episodes` : "no evaluation",
    b.sftWarmupSteps > 0 ? `${b.sftWarmupSteps} SFT warm-up steps first` : "no SFT warm-up",
  ];
  return `${parts.join("; ")}.`;
}
