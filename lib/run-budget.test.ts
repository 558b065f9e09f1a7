import { test } from "node:test";
import assert from "node:assert/strict";
import { parseRunConfig } from "./run-config";
import { describeBudget, runBudget } from "./run-budget";

test("the budget counts episodes, the generated-token bound, evaluations and the warm-up from the config", () => {
  const c = parseRunConfig({
    environment: "guess-number",
    grpo: { steps: 30, groupsPerStep: 4, groupSize: 8, minibatchSize: 32, sftWarmupSteps: 10 },
    rollout: { maxTurns: 4, maxNewTokens: 16 },
    evaluation: { testFreq: 10, maxTasks: 5, samplesPerTask: 2 },
  });
  assert.deepEqual(runBudget(c), {
    steps: 30,
    episodesPerStep: 32,
    episodes: 960,
    maxGeneratedTokens: 960 * 4 * 16,
    evaluations: 3,
    evaluationEpisodes: 30,
    sftWarmupSteps: 10,
  });
  assert.equal(
    describeBudget(c),
    "30 steps × 32 episodes (4 groups × 8) = 960 training episodes; at most 61,440 generated tokens (4 turns × 16 tokens each); 3 evaluations of up to 10 episodes; 10 SFT warm-up steps first.",
  );
  const none = parseRunConfig({ environment: "guess-number", evaluation: { testFreq: 0 }, grpo: { sftWarmupSteps: 0 } });
  assert.match(describeBudget(none), /no evaluation; no SFT warm-up\.$/);
});
