/**
 * What an endpoint does wrong, met the way a user needs: a 429 is waited out as its Retry-After asks, the cost
 * ceiling stops the run with the reason and keeps what was finished, and tool calls that are garbage go to the
 * environment's format-error path instead of crashing the episode.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { FakeChatRequest, FakeReply } from "../llm/fake-server/server";
import { evaluate, tasksOf } from "./testing/evaluate";
import { goldReplier, recordGoldTranscripts } from "./testing/gold-replier";

const TAU2 = { environment: "tau2-retail", maxTurns: 12 } as const;

async function goldFor(maxTasks: number) {
  const s = { ...TAU2, maxTasks };
  const { env, tasks } = await tasksOf(s);
  return { s: { ...s, tasks: tasks.map((t) => t.id) }, reply: goldReplier(await recordGoldTranscripts(env, tasks, s.maxTurns)) };
}

test("a 429 with Retry-After is waited out and the trial still counts", async () => {
  const { s, reply } = await goldFor(1);
  const run = await evaluate(s, { reply, faults: { script: ["rate_limit"], retryAfter: "1" } }, { k: 1 });
  assert.equal(run.outcome.kind, "completed");
  assert.equal(run.stats.faults.rate_limit, 1);
  assert.equal(run.summary.passHat[1], 1, "the trial succeeded after the wait");
  const calls = run.trajectories[0].llmCalls.filter((c) => c.role === "policy");
  const [first, second] = calls;
  assert.match(first.error ?? "", /429/);
  assert.equal(second.attempt, 2);
  assert.equal(second.error, null);
  const waited = Date.parse(second.startedAt) - Date.parse(first.startedAt);
  assert.ok(waited >= 950, `waited ${waited} ms for "retry-after: 1"`);
  assert.equal(run.summary.unscored, 0);
});

test("the cost ceiling stops the run cleanly with the reason; finished tasks keep their scores", async () => {
  const { s, reply } = await goldFor(4);
  // $1 per 1,000 tokens: a τ² request of ~600 tokens costs ~$0.6, so a $1 ceiling is reached on the second call.
  const run = await evaluate(
    s,
    { reply, latencyMs: 5 },
    {
      k: 1,
      policy: { endpoint: { price: { inputPerMTok: 1000, outputPerMTok: 1000 } } } as never,
      eval: { maxCostUsd: 1, concurrency: 1 } as never,
    },
  );
  assert.equal(run.outcome.kind, "limit");
  if (run.outcome.kind !== "limit") return;
  assert.match(run.outcome.message, /cost ceiling/);
  assert.match(run.outcome.message, /eval\.maxCostUsd is \$1/);
  assert.ok(run.spentUsd >= 1, `spent ${run.spentUsd}`);
  assert.ok(run.outcome.steps < 4, `stopped after ${run.outcome.steps} of 4 tasks`);
  assert.equal(run.sink.steps.size, run.outcome.steps, "only finished tasks are recorded");
  assert.ok(
    run.trajectories.every((t) => t.status !== "error"),
    "no trial cut by the stop is recorded",
  );
  // Calls after the ceiling are refused before they are sent: one at a time, each ≥ $0.4, so at most three went out.
  assert.ok(run.stats.requests <= 3, `${run.stats.requests} requests, $${run.spentUsd}, ${run.outcome.steps} tasks recorded`);
});

test("at the cost ceiling every call the endpoint billed is recorded and costed, those of the task cut short included", async () => {
  const { s, reply } = await goldFor(4);
  // $1 per 1,000 tokens, two trials at once: the ceiling is reached in the middle of a task, with a call in flight.
  const price = { inputPerMTok: 1000, outputPerMTok: 1000 };
  const run = await evaluate(
    s,
    { reply, latencyMs: 30 },
    { k: 2, policy: { endpoint: { price } } as never, eval: { maxCostUsd: 2, concurrency: 2 } as never },
  );
  assert.equal(run.outcome.kind, "limit");
  if (run.outcome.kind !== "limit") return;
  const billed = (run.stats.billed.promptTokens * price.inputPerMTok + run.stats.billed.completionTokens * price.outputPerMTok) / 1e6;
  const inTrials = run.trajectories.flatMap((t) => t.llmCalls);
  const unattached = run.sink.unattachedCalls;
  assert.ok(unattached.length > 0, "the calls of the task cut short are kept");
  const policyCalls = [...inTrials, ...unattached].filter((c) => c.role === "policy");
  assert.equal(policyCalls.length, run.stats.requests, "one record per request the endpoint answered");
  const recorded = [...inTrials, ...unattached].reduce((sum, c) => sum + c.costUsd, 0);
  assert.ok(Math.abs(recorded - billed) < 1e-9, `recorded $${recorded} vs billed $${billed}`);
  assert.ok(Math.abs(run.summary.costUsd - billed) < 1e-9, `summary $${run.summary.costUsd} vs billed $${billed}`);
  assert.ok(Math.abs(run.spentUsd - billed) < 1e-9, `ceiling's total $${run.spentUsd} vs billed $${billed}`);
  assert.match(
    run.outcome.message,
    new RegExp(`cost \\$${billed.toFixed(4).replace(".", "\\.")}`),
    "the stop reason states what was billed",
  );
  if (run.outcome.steps > 0) {
    const last = run.sink.series("eval/cost_usd").at(-1)?.[1] ?? 0;
    assert.ok(Math.abs(last - billed) < 1e-9, `eval/cost_usd ${last} vs billed ${billed}`);
  }
});

/** A model that sends a malformed call, then an unknown function, then says goodbye. */
function garbage(req: FakeChatRequest): FakeReply {
  const turn = req.messages.filter((m) => m.role === "assistant").length;
  if (turn === 0) return { content: "", toolCalls: [{ id: "call_bad", name: "find_user_id_by_email", arguments: '{"email": "x@y.z"' }] };
  if (turn === 1) return { content: "", toolCalls: [{ id: "call_nope", name: "launch_rocket", arguments: "{}" }] };
  return { content: "Goodbye." };
}

test("garbage tool calls get the environment's format-error path, never a crash", async () => {
  const run = await evaluate({ ...TAU2, maxTasks: 1, maxTurns: 4 }, { reply: garbage }, { k: 1 });
  assert.equal(run.outcome.kind, "completed");
  const [t] = run.trajectories;
  assert.notEqual(t.status, "error", t.error ?? "");
  assert.equal(typeof t.reward, "number", "scored (0), not lost");
  const policy = t.conversation.filter((m) => m.source === "policy");
  assert.match(policy[0].formatError ?? "", /bad_arguments/, "malformed JSON arguments: a format error");
  const formatObs = t.conversation.find((m) => m.source === "environment" && m.formatError);
  assert.ok(formatObs, "the environment told the model");
  const unknown = t.conversation.find((m) => m.role === "tool" && m.toolCallId === "call_nope");
  assert.ok(unknown, "an unknown function is answered by the environment, by its id");
  // The model saw its refused call written back, beside the format error.
  const second = t.llmCalls.filter((c) => c.role === "policy")[1];
  assert.ok(second.request.messages.some((m) => m.role === "assistant" && /find_user_id_by_email/.test(m.content)));
});

test("on a text-protocol environment, tool calls sent anyway are read as its protocol reads them", async () => {
  const run = await evaluate({ environment: "guess-number", maxTasks: 2, maxTurns: 3 }, { reply: garbage }, { k: 1 });
  assert.equal(run.outcome.kind, "completed");
  for (const t of run.trajectories) {
    assert.notEqual(t.status, "error", t.error ?? "");
    assert.equal(t.reward, 0);
    assert.ok(
      t.conversation.some((m) => /say 1-8/.test(m.content)),
      "the game's own invalid-move reply",
    );
  }
});
