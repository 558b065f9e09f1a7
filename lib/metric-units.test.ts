import { test } from "node:test";
import assert from "node:assert/strict";
import { metricUnit } from "./metric-units";

test("charts state the unit of every timed, priced, counted or fractional metric, and none for plain numbers", () => {
  const unit = (k: string) => metricUnit(k)?.unit ?? null;
  assert.equal(unit("time/rollout_s"), "s");
  assert.equal(unit("llm/judge/latency_p95_ms"), "ms");
  assert.equal(unit("llm/cost_usd"), "USD");
  assert.equal(unit("llm/judge/cost_usd"), "USD");
  assert.equal(unit("clip/frac_high"), "fraction");
  assert.equal(unit("clip/frac"), "fraction");
  assert.equal(unit("reward/zero_variance_group_frac"), "fraction");
  assert.equal(unit("response/length_mean"), "tokens");
  assert.equal(unit("llm/prompt_tokens"), "tokens");
  assert.equal(unit("llm/calls"), "calls");
  assert.equal(unit("llm/user_simulator/calls"), "calls");
  assert.equal(unit("kl"), "nats");
  assert.equal(unit("env/turns_mean"), "turns");
  for (const plain of ["reward/mean", "adv/mean", "loss/policy", "ratio/max", "reward/task_success"])
    assert.equal(unit(plain), null, plain);
});
