/**
 * The launch form's pre-flight for an evaluation by an endpoint shows the first request the model will receive:
 * the first task's opening as chat messages, its tools as function schemas (not in the prompt), the sampling
 * parameters — and never a key.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseRunConfig } from "../../lib/run-config";
import { computePreflight } from "./compute";

test("an endpoint evaluation's pre-flight is its first request, tools as schemas, no key", async () => {
  process.env.EVAL_PREFLIGHT_API_KEY = "sk-never-shown-0123456789abcdef";
  const config = parseRunConfig({
    environment: "tau2-retail",
    policy: {
      endpoint: { baseUrl: "https://user:pw@llm.example/v1?key=x", model: "gpt-x", apiKeyEnv: "EVAL_PREFLIGHT_API_KEY" },
      sampling: { temperature: 0.2 },
    },
    eval: { k: 3, maxTasks: 2 },
  });
  const r = await computePreflight(config, []);
  assert.ok(r.evaluation);
  assert.equal(r.evaluation.tasks, 2);
  assert.equal(r.evaluation.trials, 6);
  const req = r.evaluation.firstRequest;
  assert.equal(req.endpoint, "https://llm.example/v1", "credentials and query stripped");
  assert.equal(req.model, "gpt-x");
  assert.equal(req.params.temperature, 0.2);
  assert.equal(req.messages[0].role, "system");
  assert.equal(req.messages.at(-1)?.role, "user", "the customer's opening");
  assert.ok(
    req.tools.some((t) => t.name === "find_user_id_by_email"),
    "tools as function schemas",
  );
  assert.ok(!req.messages[0].content.includes("find_user_id_by_email"), "…and not in the system prompt");
  assert.ok(!JSON.stringify(r).includes("sk-never-shown"), "no key anywhere");
  assert.deepEqual(r.problems, []);
});

test("the gold replay's pre-flight says it is a script, not a model", async () => {
  const r = await computePreflight(parseRunConfig({ environment: "guess-number", policy: { scripted: "gold" }, eval: { k: 1 } }), []);
  assert.equal(r.evaluation?.firstRequest.endpoint, "built-in script");
  assert.match(r.evaluation?.firstRequest.model ?? "", /not a model/);
  assert.deepEqual(r.evaluation?.firstRequest.tools, [], "a text protocol: no tools");
});
