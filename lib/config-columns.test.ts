import { test } from "node:test";
import assert from "node:assert/strict";
import { columnChoices, configLeaves, formatConfigValue, parseColumns } from "./config-columns";

test("a config's columns are its scalar leaves by dotted path; lists and objects are not columns", () => {
  const leaves = configLeaves({
    grpo: { learningRate: 1e-3, steps: 40, dualClip: null },
    policy: { model: "tiny" },
    tags: ["a"],
    curriculum: [{ steps: 2 }],
  });
  assert.deepEqual(leaves, { "grpo.learningRate": 1e-3, "grpo.steps": 40, "grpo.dualClip": null, "policy.model": "tiny" });
});

test("settings that differ between the listed runs are offered first; a setting missing from a run differs", () => {
  const choices = columnChoices([
    { "grpo.learningRate": 1e-3, "policy.model": "tiny", seed: 1 },
    { "grpo.learningRate": 2e-3, "policy.model": "tiny" },
  ]);
  assert.deepEqual(choices, { varying: ["grpo.learningRate", "seed"], constant: ["policy.model"] });
});

test("the cols parameter keeps plain dotted paths, once each, at most 12", () => {
  assert.deepEqual(parseColumns("grpo.learningRate,policy.model,grpo.learningRate,bad path,<x>,"), ["grpo.learningRate", "policy.model"]);
  assert.equal(parseColumns(Array.from({ length: 20 }, (_, i) => `k${i}`).join(",")).length, 12);
  assert.deepEqual(parseColumns(null), []);
});

test("values read as a researcher writes them", () => {
  assert.equal(formatConfigValue(0.001), "0.001");
  assert.equal(formatConfigValue(0.00005), "5.0e-5");
  assert.equal(formatConfigValue(40), "40");
  assert.equal(formatConfigValue(undefined), "—");
  assert.equal(formatConfigValue(false), "false");
});
