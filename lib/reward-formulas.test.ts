import { test } from "node:test";
import assert from "node:assert/strict";
import { ENVIRONMENT_CATALOG } from "./environments";
import { parseRunConfig } from "./run-config";
import { rewardContextOf, rewardFormula } from "./reward-formulas";

test("every environment the launch form offers has its reward formula, with at least one term unless a judge decides", () => {
  for (const env of ENVIRONMENT_CATALOG) {
    const f = rewardFormula({ environment: env.name });
    assert.ok(f, `${env.name} has a formula`);
    assert.match(f.formula, /^reward = /);
    assert.ok(f.terms.length > 0, `${env.name} names its terms`);
  }
  assert.equal(rewardFormula({ environment: "simulated", llmJudge: true })!.terms.length, 0, "an LLM judge's keys are its own");
  assert.equal(rewardFormula({ environment: "not-an-env" }), null);
});

test("options that change the formula change what is shown", () => {
  assert.equal(
    rewardFormula({ environment: "guess-number", environmentOptions: { turnPenalty: 0.1 } })!.formula,
    "reward = solved ? max(0, 1 − 0.1 × (turns − 1)) : 0",
  );
  const blend = rewardFormula({ environment: "sgd", environmentOptions: { rewardMode: "goal_blend", judgeWeight: 0.7 } })!;
  assert.equal(blend.formula, "reward = 0.3 × goal_completion + 0.7 × judge_quality");
  assert.deepEqual(rewardFormula({ environment: "sgd" })!.terms, ["turn_judge_mean"], "by default goal completion is a diagnostic");
  assert.match(
    rewardFormula({ environment: "simulated", llmJudge: true, environmentOptions: { judge: { mode: "simia" } } })!.formula,
    /read as Simia-RL reads it/,
    "Simia's mode says its judge scores as Simia does",
  );
  assert.deepEqual(rewardFormula({ environment: "bfcl", environmentOptions: { rewardMode: "binary" } })!.terms, ["bfcl_valid"]);
});

test("a τ² task's own reward basis decides its terms; a task naming none scores DB × COMMUNICATE", () => {
  const withAction = rewardFormula({ environment: "tau2-retail", task: { data: { rewardBasis: ["DB", "ACTION"] } } })!;
  assert.deepEqual(withAction.terms, ["stopped", "db", "action"]);
  assert.match(withAction.formula, /stopped × DB × ACTION/);
  assert.deepEqual(rewardFormula({ environment: "tau2-retail", task: { data: {} } })!.terms, ["stopped", "db", "communicate"]);
});

test("a stored run config gives the context; turn credit and stage overrides become notes; imported configs give none", () => {
  const config = parseRunConfig({ environment: "userrl-intention", grpo: { turnCredit: "r2g" } });
  const f = rewardFormula(rewardContextOf(config, null)!)!;
  assert.match(f.notes.join(" "), /per-turn rewards \(turn credit "r2g"\)/);
  // UserRL's advantage code leaves a group's all-zero trajectories at 0 under r2g (userrl-parity.test.ts): the card says so.
  assert.match(f.notes.join(" "), /all 0 gets advantage 0 on every token/);
  const em = rewardFormula(rewardContextOf(parseRunConfig({ environment: "userrl-intention", grpo: { turnCredit: "em" } }), null)!)!;
  assert.doesNotMatch(em.notes.join(" "), /advantage 0 on every token/);
  assert.equal(rewardContextOf({ trainer: "verl", actor_rollout_ref: {} }, null), null);
});
