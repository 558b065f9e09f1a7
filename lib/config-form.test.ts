import { test } from "node:test";
import assert from "node:assert/strict";
import { describeConfigFields, getAtPath, humanLabel, placeErrors, setAtPath, validateConfigInput } from "./config-form";

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

test("every refusal is placed beside the control that holds it, so none points nowhere", () => {
  const fields = describeConfigFields().map((f) => f.path.join("."));
  // The environment select is a control of its own, outside the generated fields.
  const place = (input: unknown) => {
    const r = validateConfigInput(input);
    assert.equal(r.ok, false);
    return r.ok ? null! : { errors: r.errors, placed: placeErrors(r.errors, ["environment", ...fields], ["grpo", "rollout", "policy"]) };
  };
  const rules = place({ environment: "nope-env", grpo: { groupSize: 1 } });
  assert.match(rules.placed.fields.environment, /Unknown environment "nope-env"; choose one of: .*guess-number/);
  assert.match(rules.placed.fields["grpo.groupSize"], /at least 2/);
  assert.deepEqual(rules.placed.rest, []);

  const shape = place({
    grpo: { overlongPenalty: { bufferTokens: -3, factor: 1 }, bogus: 1 },
    llm: { judge: { baseUrl: "http://127.0.0.1:1/v1" } },
    stray: true,
  });
  // Inside a JSON-edited value: beside that field, naming the part that is wrong.
  assert.match(shape.placed.fields["grpo.overlongPenalty"], /^bufferTokens: /);
  assert.match(shape.placed.fields["llm.judge"], /^model: /);
  assert.match(shape.placed.sections.grpo, /bogus/);
  assert.deepEqual(shape.placed.rest, ['Unrecognized key: "stray"']);
});

test("the form labels fields in words, initials kept, with the key as the tooltip (not 4,000 px of camelCase)", () => {
  assert.equal(humanLabel("learningRate"), "Learning rate");
  assert.equal(humanLabel("sftWarmupSteps"), "SFT warm-up steps");
  assert.equal(humanLabel("klInReward"), "KL in reward");
  assert.equal(humanLabel("contextLength"), "Context length");
  assert.equal(humanLabel("lora"), "LoRA");
  assert.equal(humanLabel("topP"), "Top-p");
  assert.equal(humanLabel("name"), "Name");
  const fields = describeConfigFields();
  const rate = fields.find((f) => f.path.join(".") === "grpo.learningRate")!;
  assert.equal(rate.label, "Learning rate");
  const camel = fields.map((f) => f.label).filter((l) => l !== "LoRA" && /[a-z][A-Z]/.test(l));
  assert.deepEqual(camel, [], "no camelCase label left");
});
