/**
 * Every environment's launch-form default passes its own pre-flight check: the opening prompt of its first training
 * task, rendered with the preset's chat template and tokenizer, fits the preset's context with room for a second turn, and a step
 * fits the memory of a modest machine. Before, the form opened on `simulated` with the schema's 512-token context
 * (a 2.5 K-token prompt) and τ² retail's preset held a 9.7 K-token prompt in 4 K, so Launch stayed disabled.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_ENVIRONMENT, ENVIRONMENT_CATALOG, presetConfig } from "../../lib/environments";
import { parseRunConfig } from "../../lib/run-config";
import { stepMemoryLimitBytes } from "../../lib/step-memory";
import { dataRoots } from "../data-roots";
import { policyChatFormat, policyModelConfig } from "../loop/real/load-policy";
import { confineRunPaths } from "../loop/real/run-paths";
import { planPreflight } from "./plan";

/** A laptop with 8 GiB of RAM and no override: the budget a worker there allows a step. */
const MODEST_MACHINE_LIMIT = stepMemoryLimitBytes({}, 8 * 2 ** 30);

for (const env of ENVIRONMENT_CATALOG) {
  test(`the launch form's default for ${env.name} passes its pre-flight`, async () => {
    const config = await confineRunPaths(parseRunConfig(presetConfig(env.name)), dataRoots(".data"));
    const policy = { modelConfig: await policyModelConfig(config), chat: await policyChatFormat(config) };
    const plan = await planPreflight(config, policy, MODEST_MACHINE_LIMIT);
    assert.deepEqual(plan.problems, [], `${env.name}: ${plan.promptTokens} prompt tokens, context ${plan.contextLength}`);
    assert.ok(plan.fits);
    assert.ok(plan.headroom >= plan.maxNewTokens, `${env.name}: room for a second reply after the first`);
  });
}

test("the form opens on an environment whose preset is its default", () => {
  const config = parseRunConfig(presetConfig(DEFAULT_ENVIRONMENT));
  assert.equal(config.environment, DEFAULT_ENVIRONMENT);
  assert.equal(config.policy.contextLength, ENVIRONMENT_CATALOG.find((e) => e.name === DEFAULT_ENVIRONMENT)?.preset.policy?.contextLength);
});
