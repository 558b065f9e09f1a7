/**
 * The pre-flight's "tokens trained per step" counts what the update will really train (issue #43): with
 * rollout.policyContext "rerender", a template that renders every turn otherwise than it was sampled trains a
 * sequence per turn, each repeating the history; "append" trains one sequence per episode.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseRunConfig } from "../../lib/run-config";
import { policyChatFormat, policyModelConfig } from "../loop/real/load-policy";
import { planPreflight, trainedPerEpisode } from "./plan";

const planFor = async (policyContext: "append" | "rerender") => {
  const config = parseRunConfig({
    environment: "guess-number",
    policy: { model: "tiny", contextLength: 1024 },
    rollout: { maxTurns: 4, maxNewTokens: 64, policyContext },
    grpo: { groupsPerStep: 2, groupSize: 4, minibatchSize: 8 },
  });
  return planPreflight(config, { modelConfig: await policyModelConfig(config), chat: await policyChatFormat(config) }, 2 ** 40);
};

test("tokens trained per step: one sequence per episode when appending, the history once per turn when re-rendering", async () => {
  const append = await planFor("append");
  const rerender = await planFor("rerender");
  const p = append.promptTokens;
  assert.equal(append.tokensPerStep, 8 * Math.min(1024, p + 4 * 64));
  assert.equal(rerender.tokensPerStep, 8 * [1, 2, 3, 4].reduce((s, t) => s + Math.min(1024, p + t * 64), 0));
  assert.ok(rerender.tokensPerStep > 2 * append.tokensPerStep, `${rerender.tokensPerStep} vs ${append.tokensPerStep}`);
  // each re-rendered sequence is still at most the context
  assert.equal(trainedPerEpisode("rerender", 100, 90, 3, 50), 300);
});
