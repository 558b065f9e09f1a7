import { test } from "node:test";
import assert from "node:assert/strict";
import { findSecretLikeValues, parseRunConfig } from "./run-config";
import { ENVIRONMENT_CATALOG } from "./environments";
import { configIssues } from "./testing/config-issues";

const issues = configIssues;

test("an empty config is a complete, runnable default", () => {
  const c = parseRunConfig({});
  assert.equal(c.environment, "simulated");
  assert.equal(c.grpo.groupSize, 4);
  assert.equal(c.grpo.advantageEstimator, "grpo");
  assert.equal(c.checkpoint.saveFreq, 5);
});

test("invalid combinations say which field to change and how", () => {
  const found = issues({ grpo: { groupSize: 1, minibatchSize: 64, groupsPerStep: 2 } });
  assert.match(found["grpo.groupSize"], /at least 2/);
  assert.match(found["grpo.minibatchSize"], /lower it to 2 or less/);
  assert.match(issues({ grpo: { klInReward: true } })["grpo.klCoef"], /set klCoef/);
  assert.match(issues({ grpo: { klInReward: true, klCoef: 0.1, turnCredit: "r2g" } })["grpo.klInReward"], /multi-turn credit does not use/);
  assert.match(issues({ dataset: { demonstrationsPath: "demos.jsonl" } })["dataset.demonstrationsPath"], /set grpo.sftWarmupSteps > 0/);
  assert.doesNotThrow(() =>
    parseRunConfig({ dataset: { demonstrationsPath: "demos.jsonl" }, grpo: { sftWarmupSteps: 4, klInReward: true, klCoef: 0.05 } }),
  );
  assert.match(
    issues({ grpo: { steps: 10 }, curriculum: [{ name: "format", steps: 3 }] })["curriculum"],
    /add up to 3 steps but grpo.steps is 10/,
  );
  assert.match(issues({ environment: "nope" })["environment"], /choose one of: simulated/);
  assert.match(issues({ grpo: { sneaky: 1 } })["grpo"], /Unrecognized key/);
  assert.match(
    issues({ grpo: { turnCredit: "r2g", advantageEstimator: "drgrpo" } })["grpo.advantageEstimator"],
    /would be ignored\. Set advantageEstimator to "grpo", or turnCredit to "none"/,
  );
});

test("GRPO defaults follow verl: dual clip at c = 3 (null turns it off); the straight-through KL variants are accepted", () => {
  assert.equal(parseRunConfig({}).grpo.dualClip, 3);
  assert.equal(parseRunConfig({ grpo: { dualClip: null } }).grpo.dualClip, null);
  assert.match(issues({ grpo: { dualClip: 1 } })["grpo.dualClip"], /expected number to be >1/);
  for (const klEstimator of ["k1+", "k3+"] as const)
    assert.equal(parseRunConfig({ grpo: { klEstimator, klCoef: 0.1 } }).grpo.klEstimator, klEstimator);
});

test("every catalog preset is a valid config", () => {
  for (const env of ENVIRONMENT_CATALOG) {
    assert.doesNotThrow(() => parseRunConfig({ ...env.preset, environment: env.name }), env.name);
  }
});

test("API keys pasted into a config are found wherever they are", () => {
  assert.deepEqual(findSecretLikeValues({ llm: { judge: { baseUrl: "http://x", model: "m", apiKeyEnv: "OPENAI_API_KEY" } } }), []);
  assert.deepEqual(findSecretLikeValues({ llm: { judge: { apiKey: "anything" } } }), ["llm.judge.apiKey"]);
  assert.deepEqual(findSecretLikeValues({ name: "run sk-abcdefghijklmnop1234" }), ["name"]);
  assert.deepEqual(findSecretLikeValues({ tags: ["ok", "hf_abcdefghijklmnopqrstuvwx"] }), ["tags.1"]);
});
