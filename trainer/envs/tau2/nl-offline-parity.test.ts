/**
 * τ² NL assertions with no judge endpoint, against τ²'s own evaluator (tests/fixtures/parity/tau2-nl-offline.json,
 * made by scripts/parity/tau2_nl_offline_parity.py): τ²'s NLAssertionsEvaluator cannot score a task's assertions
 * without an LLM, so offline every such episode is unscored here — never passed, whatever the agent said (0 only
 * when another check of its basis failed, since the product is then 0 whatever the assertions say) — while tasks
 * without assertions score as before; with a judge endpoint the assertions are judged.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { LlmChat } from "../types";
import { createTau2RetailEnvironment } from "./index";
import { LlmClient } from "../../llm/client";
import { startFakeLlmServer } from "../../llm/fake-server/server";
import { sharedData } from "../../../tests/fixtures/shared-data";

const REPO = path.resolve(import.meta.dirname, "../../..");
const fx = JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity/tau2-nl-offline.json"), "utf8")) as {
  agent_said: string;
  tasks: { id: string; reward_basis: string[]; nl_assertions: string[]; nl_assertion_evaluator: { reward?: number; raises?: string } }[];
};
const retail = sharedData("data/tau2/retail");
const offline: LlmChat = { chat: async (req) => ({ text: req.offline ? await req.offline() : "", callId: "c" }) };

test("offline, a task τ² cannot score without an LLM is unscored, never passed; the others score", async () => {
  const env = createTau2RetailEnvironment();
  const tasks = await env.loadTasks!(retail.dir);
  let needJudge = 0;
  let passed = 0;
  let unscored = 0;
  let scored = 0;
  for (const t of fx.tasks) {
    const task = tasks.find((x) => x.data.taskId === t.id);
    if (!task) continue; // the vendored sample holds 10 of τ²'s 114 retail tasks
    const ep = env.createEpisode(task, { seed: 1, llm: offline, maxTurns: 4 });
    await ep.reset();
    await ep.step(fx.agent_said, 0);
    const ev = await ep.evaluate("user_done");
    if (t.nl_assertion_evaluator.raises !== undefined) {
      needJudge++;
      if (ev.components.nl_assertion === 1) passed++;
      // Unscored, or 0 because another check of the basis failed (then the product is 0 whatever the assertions say).
      const undecided = ev.reward === null && /NL_ASSERTION: not scorable offline: no judge endpoint/.test(ev.reasoning);
      const failedElsewhere = ev.reward === 0 && /another check of the basis failed/.test(ev.reasoning);
      if (undecided || failedElsewhere) unscored++;
    } else {
      assert.equal(t.nl_assertion_evaluator.reward, 1);
      if (ev.reward !== null && ev.components.nl_assertion === 1) scored++;
    }
  }
  assert.ok(needJudge >= (retail.full ? 40 : 3), `${needJudge} tasks whose NL assertions need a judge`);
  assert.deepEqual(
    { passed, unscored },
    { passed: 0, unscored: needJudge },
    `of ${needJudge} tasks τ² cannot score offline, ${passed} passed "${fx.agent_said}" and ${unscored} were unscored (or 0 by another check)`,
  );
  assert.equal(
    scored,
    fx.tasks.filter((t) => t.nl_assertion_evaluator.reward !== undefined && tasks.some((x) => x.data.taskId === t.id)).length,
  );
});

test("with a judge endpoint the assertions are judged: met scores, not met is 0", async () => {
  const env = createTau2RetailEnvironment();
  const task = env.builtinTasks().find((t) => t.data.nlAssertions.length > 0 && t.data.rewardBasis.includes("NL_ASSERTION"))!;
  for (const met of [true, false]) {
    const server = await startFakeLlmServer({ reply: () => JSON.stringify({ results: [{ met, justification: "checked" }] }) });
    try {
      const llm = new LlmClient({
        endpoints: { judge: { baseUrl: server.url, model: "judge" } },
        retry: { maxAttempts: 1, baseDelayMs: 1 },
      });
      const ep = env.createEpisode(task, { seed: 1, llm, maxTurns: 4 });
      await ep.reset();
      await ep.step("Sorry, I can't help with that.", 0);
      const ev = await ep.evaluate("user_done");
      assert.equal(ev.components.nl_assertion, met ? 1 : 0, ev.reasoning);
    } finally {
      await server.close();
    }
  }
});
