import { test } from "node:test";
import assert from "node:assert/strict";
import { llmEndpointPolicyFromEnv } from "../../lib/llm-endpoint-policy";
import { InvalidInputError, validateRunConfig } from "./run-lifecycle";

/** The default endpoint policy (the test harness allows loopback in process.env for its fake LLM servers). */
const DEFAULT_POLICY = llmEndpointPolicyFromEnv({});

const issuesOf = (config: unknown) => {
  try {
    validateRunConfig(config, DEFAULT_POLICY);
    return [];
  } catch (err) {
    assert.ok(err instanceof InvalidInputError, String(err));
    return err.issues;
  }
};

test("creating a run that would send the database URL to another host is a 400 naming the field and the fix", () => {
  const issues = issuesOf({ llm: { judge: { baseUrl: "http://attacker.example/v1", model: "m", apiKeyEnv: "DATABASE_URL" } } });
  assert.deepEqual(
    issues.map((i) => i.path),
    ["config.llm.judge.apiKeyEnv"],
  );
  assert.match(issues[0].message, /one of Rollout Lab's own settings, never an LLM key; put the key in a variable such as OPENAI_API_KEY/);
  assert.deepEqual(issuesOf({ llm: { judge: { baseUrl: "https://api.openai.com/v1", model: "m", apiKeyEnv: "OPENAI_API_KEY" } } }), []);
});

test("an endpoint on this machine, the private network or a non-http scheme is a 400 naming the field and the variable to set", () => {
  const issues = issuesOf({
    llm: {
      judge: { baseUrl: "http://127.0.0.1:3000/api/", model: "m", apiKeyEnv: "OPENAI_API_KEY" },
      userSimulator: { baseUrl: "http://192.168.1.20:8000/v1", model: "m" },
      toolSimulator: { baseUrl: "file:///etc/passwd", model: "m" },
    },
  });
  assert.deepEqual(
    issues.map((i) => i.path),
    ["config.llm.userSimulator.baseUrl", "config.llm.toolSimulator.baseUrl", "config.llm.judge.baseUrl"],
  );
  assert.match(issues[0].message, /is a private-network address.*ROLLOUT_LAB_ALLOW_PRIVATE_LLM=true.*ROLLOUT_LAB_LLM_BASE_URLS/);
  assert.match(issues[1].message, /file: URLs are not LLM endpoints/);
  assert.match(issues[2].message, /one of Rollout Lab's own listeners \(port 3000/);
});

test("paths that climb out with .. or carry NUL are refused at creation", () => {
  assert.deepEqual(
    issuesOf({ dataset: { path: "../../etc/passwd" } }).map((i) => i.path),
    ["config.dataset.path"],
  );
  assert.match(issuesOf({ policy: { tokenizer: "tok/../../../x.json" } })[0].message, /must not contain "\.\."/);
  assert.deepEqual(
    issuesOf({ dataset: { path: "a\u0000b" } }).map((i) => i.path),
    ["config.dataset.path"],
  );
  assert.deepEqual(issuesOf({ dataset: { path: "tau2/retail" } }), []);
});

test("configs a worker cannot run are refused at creation with the figure and what to change", () => {
  const huge = issuesOf({ grpo: { groupsPerStep: 1024, groupSize: 256, minibatchSize: 16 }, rollout: { maxTurns: 100 } });
  assert.match(
    huge.find((i) => i.path === "config.grpo.groupsPerStep")?.message ?? "",
    /262144 episodes per step; a worker plays and trains at most 4096/,
  );
  assert.match(huge.find((i) => i.path === "config.rollout.maxNewTokens")?.message ?? "", /sampled tokens per step/);

  const memory = issuesOf({ policy: { model: "base" }, grpo: { groupsPerStep: 64, groupSize: 64, minibatchSize: 4096 } });
  assert.equal(memory.length, 1, JSON.stringify(memory));
  assert.match(
    memory[0].message,
    /^One training step needs an estimated [\d.]+ GiB \(.*activations [\d.]+ GiB for micro-batches of 4096 × 1024 tokens.*\) but the worker allows [\d.]+ GiB \(ROLLOUT_LAB_MAX_STEP_MEMORY_GB\)\. Lower grpo\.microBatchSize/,
  );
  assert.deepEqual(
    issuesOf({ policy: { model: "base" }, grpo: { groupsPerStep: 64, groupSize: 64, minibatchSize: 4096, microBatchSize: 8 } }),
    [],
    "micro-batching makes it fit",
  );
});

test("environment options are checked at creation by the environment's own schema: unknown keys named, stages too", () => {
  const unknown = issuesOf({ environment: "guess-number", environmentOptions: { max: 4, colour: "red" } });
  assert.deepEqual(
    unknown.map((i) => [i.path, i.message]),
    [["config.environmentOptions", 'unknown option "colour" for environment "guess-number"']],
  );
  const stage = issuesOf({
    environment: "bfcl",
    grpo: { steps: 2 },
    curriculum: [{ name: "format", steps: 2, environmentOptions: { rewardMode: "vibes" } }],
  });
  assert.deepEqual(
    stage.map((i) => i.path),
    ["config.curriculum.0.environmentOptions.rewardMode"],
  );
  assert.deepEqual(issuesOf({ environment: "guess-number", environmentOptions: { max: 4 } }), []);
});
