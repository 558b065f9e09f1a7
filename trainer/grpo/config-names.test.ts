/**
 * Every GRPO variant a RunConfig accepts (lib/run-config.ts) exists in the trainer's registries, so a config that
 * validates never fails at the first step with an unknown name.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as config from "../../lib/run-config";
import * as grpo from "./index";
import { TRAJECTORY_SCORE_NAMES, TURN_CREDIT_NAMES } from "../loop/real/turn-credit";

test("the config's GRPO names are all implemented", () => {
  const has = (registry: Readonly<Record<string, unknown>> | readonly string[], name: string) =>
    Array.isArray(registry) ? registry.includes(name) : Object.hasOwn(registry, name);
  for (const n of config.ADVANTAGE_ESTIMATORS) assert.ok(has(grpo.ADVANTAGE_ESTIMATORS, n), `advantageEstimator ${n}`);
  for (const n of config.LOSS_AGGREGATIONS) assert.ok(has(grpo.LOSS_AGGREGATIONS, n), `lossAggregation ${n}`);
  for (const n of config.KL_ESTIMATORS) assert.ok(has(grpo.KL_ESTIMATORS, n), `klEstimator ${n}`);
  // Multi-turn names are mapped to UserRL's spelling by the loop (trainer/loop/real/turn-credit.ts).
  for (const n of config.TURN_CREDIT_METHODS.filter((m) => m !== "none"))
    assert.ok(has(grpo.TURN_CREDIT_METHODS, TURN_CREDIT_NAMES[n]), `turnCredit ${n}`);
  for (const n of config.TRAJECTORY_SCORES)
    assert.ok(has(grpo.TRAJECTORY_SCORE_METHODS, TRAJECTORY_SCORE_NAMES[n]), `trajectoryScore ${n}`);
});
