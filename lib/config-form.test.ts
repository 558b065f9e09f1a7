import { test } from "node:test";
import assert from "node:assert/strict";
import { describeConfigFields, getAtPath, setAtPath, validateConfigInput } from "./config-form";

test("every RunConfig field appears in the form with its help text, default and kind", () => {
  const fields = describeConfigFields();
  const byPath = new Map(fields.map((f) => [f.path.join("."), f]));
  assert.equal(byPath.get("grpo.groupSize")?.kind, "integer");
  assert.equal(byPath.get("grpo.groupSize")?.defaultValue, 4);
  assert.match(byPath.get("grpo.groupSize")?.description ?? "", /group_size/);
  assert.deepEqual(byPath.get("grpo.klEstimator")?.options, ["k1", "k2", "k3", "k1+", "k3+"]);
  assert.equal(byPath.get("grpo.dynamicSampling")?.kind, "boolean");
  assert.equal(byPath.get("tags")?.kind, "tags");
  assert.equal(byPath.get("curriculum")?.kind, "json");
  assert.equal(byPath.get("llm.judge")?.kind, "json", "an optional endpoint is edited as one JSON value");
  assert.ok(fields.length >= 45, `expected every field, got ${fields.length}`);
});

test("setting and clearing nested values leaves the rest untouched", () => {
  const a = { grpo: { steps: 3, groupSize: 4 } };
  const b = setAtPath(a, ["grpo", "steps"], 10);
  assert.equal(getAtPath(b, ["grpo", "steps"]), 10);
  assert.equal(getAtPath(a, ["grpo", "steps"]), 3, "immutable");
  const c = setAtPath(b, ["grpo", "steps"], undefined);
  assert.deepEqual(c, { grpo: { groupSize: 4 } });
});

test("validation errors are keyed by the field they belong to", () => {
  const r = validateConfigInput({ grpo: { groupSize: 1 } });
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.errors["grpo.groupSize"], /at least 2/);
  assert.equal(validateConfigInput({}).ok, true);
});
