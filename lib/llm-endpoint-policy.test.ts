import { test } from "node:test";
import assert from "node:assert/strict";
import { apiKeyEnvProblem, baseUrlProblem, checkLlmEndpoints, llmEndpointPolicyFromEnv } from "./llm-endpoint-policy";

test("by default only *_API_KEY variables may be named, and never the product's own settings", () => {
  const policy = llmEndpointPolicyFromEnv({});
  assert.equal(apiKeyEnvProblem("OPENAI_API_KEY", policy), null);
  for (const name of ["DATABASE_URL", "SESSION_SECRET", "DASHBOARD_PASSWORD", "ROLLOUT_LAB_TOKEN", "ROLLOUT_LAB_API_KEY", "PGPASSWORD"]) {
    assert.match(apiKeyEnvProblem(name, policy) ?? "", /one of Rollout Lab's own settings/, name);
  }
  assert.match(apiKeyEnvProblem("HOME", policy) ?? "", /not an allowed key variable: use a name ending in _API_KEY/);
});

test("the operator can allow more names, but not the product's own settings", () => {
  const policy = llmEndpointPolicyFromEnv({ ROLLOUT_LAB_API_KEY_ENVS: "AZURE_OPENAI_KEY, DATABASE_URL" });
  assert.equal(apiKeyEnvProblem("AZURE_OPENAI_KEY", policy), null);
  assert.notEqual(apiKeyEnvProblem("DATABASE_URL", policy), null);
});

test("an optional base-URL allowlist; every problem of a config's llm section with its field path", () => {
  const open = llmEndpointPolicyFromEnv({});
  assert.equal(baseUrlProblem("http://anywhere/v1", open), null);
  const closed = llmEndpointPolicyFromEnv({ ROLLOUT_LAB_LLM_BASE_URLS: "https://api.openai.com/v1,http://127.0.0.1:8000/" });
  assert.equal(baseUrlProblem("http://127.0.0.1:8000/v1", closed), null);
  assert.deepEqual(
    checkLlmEndpoints(
      {
        judge: { baseUrl: "http://attacker/v1", apiKeyEnv: "DATABASE_URL" },
        userSimulator: { baseUrl: "https://api.openai.com/v1", apiKeyEnv: "OPENAI_API_KEY" },
        concurrency: 4,
      },
      closed,
    ).map((p) => p.path.join(".")),
    ["llm.judge.apiKeyEnv", "llm.judge.baseUrl"],
  );
});
