import { test } from "node:test";
import assert from "node:assert/strict";
import { ZodError } from "zod";
import { parseRunConfig } from "./run-config";
import { evalTaskSet, policyEndpointProblems, policyLabel } from "./eval-config";
import { llmEndpointPolicyFromEnv } from "./llm-endpoint-policy";

const endpoint = { baseUrl: "http://127.0.0.1:8000/v1", model: "m" };

function issues(input: unknown): { path: string; message: string }[] {
  try {
    parseRunConfig(input);
  } catch (e) {
    if (e instanceof ZodError) return e.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    throw e;
  }
  return [];
}

test("an evaluation's config mistakes name the field and what to do", () => {
  assert.deepEqual(issues({ policy: { endpoint } })[0]?.path, "policy.endpoint");
  assert.match(issues({ policy: { endpoint } })[0].message, /add an eval section/);
  assert.match(
    issues({ policy: { endpoint, scripted: "gold" }, eval: {} }).find((i) => i.path === "policy.scripted")?.message ?? "",
    /keep one/,
  );
  const ceiling = issues({ policy: { endpoint }, eval: { maxCostUsd: 2 } }).find((i) => i.path === "eval.maxCostUsd");
  assert.match(ceiling?.message ?? "", /policy\.endpoint\.price/);
  assert.deepEqual(
    issues({ policy: { endpoint: { ...endpoint, price: { inputPerMTok: 1, outputPerMTok: 2 } } }, eval: { maxCostUsd: 2 } }),
    [],
  );
  assert.match(issues({ policy: { scripted: "gold" }, eval: { tasks: ["a", "b", "a"] } })[0].message, /"a" is listed twice/);
  assert.equal(issues({ policy: { endpoint: { ...endpoint, apiKeyEnv: "sk-abc" } }, eval: {} })[0].path, "policy.endpoint.apiKeyEnv");
  assert.match(issues({ policy: { scripted: "gold" }, eval: {}, curriculum: [{ name: "x", steps: 20 }] })[0].message, /no curriculum/);
});

test("defaults: k 4, four episodes at once, temperature 0 as τ²'s agent", () => {
  const c = parseRunConfig({ policy: { endpoint }, eval: {} });
  assert.equal(c.eval?.k, 4);
  assert.equal(c.eval?.concurrency, 4);
  assert.equal(c.policy.sampling.temperature, 0);
});

test("the endpoint meets the same rules as every LLM endpoint", () => {
  const policy = llmEndpointPolicyFromEnv({ ROLLOUT_LAB_LLM_BASE_URLS: "https://api.openai.com/" });
  const problems = policyEndpointProblems({ baseUrl: "http://10.0.0.1/v1", apiKeyEnv: "DATABASE_URL" }, policy);
  assert.deepEqual(
    problems.map((p) => p.path.join(".")),
    ["policy.endpoint.apiKeyEnv", "policy.endpoint.baseUrl"],
  );
  assert.deepEqual(policyEndpointProblems({ baseUrl: "https://api.openai.com/v1", apiKeyEnv: "OPENAI_API_KEY" }, policy), []);
});

test("evaluations are comparable when environment, options, dataset, tasks and k match (task order aside)", () => {
  const a = evalTaskSet(
    parseRunConfig({
      environment: "bfcl",
      environmentOptions: { protocol: "bfcl" },
      policy: { scripted: "gold" },
      eval: { tasks: ["x", "y"] },
    }),
  )!;
  const b = evalTaskSet(
    parseRunConfig({ environment: "bfcl", environmentOptions: { protocol: "bfcl" }, policy: { endpoint }, eval: { tasks: ["y", "x"] } }),
  )!;
  const c = evalTaskSet(
    parseRunConfig({
      environment: "bfcl",
      environmentOptions: { protocol: "envtuning" },
      policy: { endpoint },
      eval: { tasks: ["x", "y"] },
    }),
  )!;
  assert.equal(a.key, b.key);
  assert.notEqual(a.key, c.key);
  assert.match(a.label, /2 chosen tasks/);
  assert.equal(evalTaskSet(parseRunConfig({})), null);
});

test("who played, in one line; the script is never called a model", () => {
  assert.equal(policyLabel(parseRunConfig({ policy: { endpoint }, eval: {} })), "m @ 127.0.0.1:8000");
  assert.equal(policyLabel(parseRunConfig({ policy: { scripted: "gold" }, eval: {} })), "gold actions replayed (scripted, not a model)");
  assert.equal(
    policyLabel(parseRunConfig({ policy: { checkpoint: { runId: "r1", step: 5 } }, eval: {} })),
    "tiny · checkpoint 5 of run r1",
  );
});
