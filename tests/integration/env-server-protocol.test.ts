/**
 * The environment server's wire protocol as a trainer sees it, through the TypeScript client (clients/typescript)
 * and raw WebSocket messages: reset / step / state / close, tools as schemas, per-turn and final rewards, what a
 * finished episode leaves in the database for the inspector, and every kind of bad input answered with a 4xx or
 * OpenEnv error code naming the problem (never a 5xx).
 *
 * (Every assert.ok here has a message: Node 20 builds a missing one by re-reading the source, and hangs on this
 * file's non-ASCII text.)
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ConversationMessage } from "../../lib/conversation";
import { RolloutLabEnv } from "../../clients/typescript/rollout-lab-env";
import { observationSchema } from "../../trainer/env-server/protocol";
import { createCaller } from "../../server/api/root";
import { createTrpcContext } from "../../server/api/trpc";
import { goldEpisodes, openRaw, startTestEnvServer, type TestEnvServer } from "./helpers/env-server";

let srv: TestEnvServer;
before(async () => {
  srv = await startTestEnvServer({ maxMessageBytes: 64 * 1024 });
});
after(() => srv?.close());

test("a τ² episode played with structured tool calls: tools at reset, tool answers, the gold reward with components, recorded for the inspector", async () => {
  const [gold] = await goldEpisodes("tau2-retail");
  const env = await RolloutLabEnv.connect(`${srv.url}/envs/tau2-retail`);
  let result = await env.reset({
    task_id: gold.taskId,
    seed: 7,
    experiment: "protocol-test",
    group: "g-1",
    step: 3,
    max_turns: gold.maxTurns,
  });
  observationSchema.parse(result.observation);
  assert.equal(result.done, false);
  assert.equal(result.observation.task_id, gold.taskId);
  assert.deepEqual(
    result.observation.messages.map((m) => m.source),
    ["system", "user_simulator"],
  );
  const toolNames = result.observation.tools!.map((t) => t.function.name);
  assert.ok(toolNames.includes("find_user_id_by_email"), toolNames.join(","));
  assert.doesNotMatch(
    result.observation.messages[0].content,
    /find_user_id_by_email/,
    "schemas mode keeps the tool list out of the prompt",
  );
  for (const action of gold.actions) {
    result = await env.step(action);
    observationSchema.parse(result.observation);
    if (action.tool_calls) {
      assert.equal(result.observation.messages[0].role, "tool");
      assert.equal(result.observation.messages[0].name, action.tool_calls[0].name);
    }
    if (result.done) break;
  }
  assert.equal(result.done, true);
  assert.equal(result.reward, gold.expectedReward, result.observation.reasoning);
  assert.equal(result.observation.end_reason, "user_done");
  assert.ok(Object.keys(result.observation.reward_components ?? {}).length > 0, "reward components on done");
  const state = await env.state();
  assert.equal(state.done, true);
  assert.equal(state.reward, 1);
  await env.close();

  await srv.server.recorder.drain();
  const t = await srv.db.prisma.trajectory.findUniqueOrThrow({
    where: { id: result.observation.trajectory_id! },
    include: { group: true, run: true },
  });
  assert.equal(t.runId, result.observation.run_id);
  assert.equal(t.run.name, "protocol-test");
  assert.equal(t.run.source, "openenv");
  assert.equal(t.step, 3);
  assert.equal(t.group.taskId, gold.taskId);
  assert.equal(t.reward, 1);
  assert.equal(t.status, "ok");
  const conversation = t.conversation as unknown as ConversationMessage[];
  const policy = conversation.filter((m) => m.source === "policy");
  assert.equal(policy.length, gold.actions.length);
  assert.equal(policy[0].toolCalls?.[0].name, gold.actions[0].tool_calls![0].name, "the answered call is on the policy message");
  const calls = await srv.db.prisma.llmCall.count({ where: { trajectoryId: t.id, role: "user_simulator" } });
  assert.ok(calls > 0, "the simulated customer's LLM calls are recorded");
  // The inspector reads it as it reads a trained run's.
  const shown = await createCaller(createTrpcContext(srv.db.prisma)).trajectories.get({ runId: t.runId, id: t.id });
  assert.ok(shown.rewardFormula, "the inspector shows the reward formula of the run's environment");
  const points = await srv.db.prisma.metricPoint.findMany({ where: { runId: t.runId, step: 3 } });
  assert.equal(points.find((p) => p.key === "reward/mean")?.value, 1);
});

test("per-turn rewards (a UserRL gym) come as turn_reward and as the step's reward; the final reward is the episode's", async () => {
  const [gold] = await goldEpisodes("userrl-travel");
  const env = await RolloutLabEnv.connect(`${srv.url}/envs/userrl-travel`);
  let result = await env.reset({ task_id: gold.taskId });
  const turnRewards: number[] = [];
  for (const action of gold.actions) {
    result = await env.step(action);
    if (!result.done) {
      assert.equal(typeof result.observation.turn_reward, "number");
      assert.equal(result.reward, result.observation.turn_reward);
      turnRewards.push(result.observation.turn_reward!);
    }
    if (result.done) break;
  }
  assert.equal(result.done, true);
  assert.equal(result.reward, 1);
  assert.ok(turnRewards.length > 0, "the gym gave turn rewards");
  await env.close();
});

test("a malformed tool call gets the environment's own format-error observation, and the episode goes on", async () => {
  const env = await RolloutLabEnv.connect(`${srv.url}/envs/tau2-retail`);
  await env.reset({ seed: 1 });
  const bad = await env.step({ message: "", tool_calls: [{ name: "find_user_id_by_email", arguments: "{not json" }] });
  assert.equal(bad.done, false);
  assert.ok(bad.observation.format_error, JSON.stringify(bad.observation));
  assert.equal(bad.observation.messages[0].source, "environment");
  const next = await env.step({ message: "Could you give me your email address?" });
  assert.equal(next.observation.messages[0].source, "user_simulator");
  await env.close();
});

test("HTTP /reset answers the opening observation; HTTP /step plays a one-turn episode and records it", async () => {
  const reset = await fetch(`${srv.url}/envs/guess-number/reset`, { method: "POST", body: JSON.stringify({ seed: 3 }) });
  assert.equal(reset.status, 200);
  const opening = await reset.json();
  assert.deepEqual(Object.keys(opening).sort(), ["done", "observation", "reward"]);
  assert.equal(opening.observation.messages[0].content, "Guess 1-8");
  const step = await fetch(`${srv.url}/envs/guess-number/step`, {
    method: "POST",
    body: JSON.stringify({ action: { message: "4" }, task_id: "guess-4", experiment: "http-step", request_id: "r1", timeout_s: 5 }),
  });
  assert.equal(step.status, 200);
  const played = await step.json();
  assert.equal(played.done, true);
  assert.equal(played.reward, 1);
  assert.equal(played.observation.messages[0].content, "correct");
  const miss = await (
    await fetch(`${srv.url}/envs/guess-number/step`, {
      method: "POST",
      body: JSON.stringify({ action: { message: "1" }, task_id: "guess-4", experiment: "http-step" }),
    })
  ).json();
  assert.equal(miss.done, true, "the one-turn episode ends with the request");
  assert.equal(miss.observation.end_reason, "client_ended");
  assert.equal(miss.observation.messages[0].content, "higher than 1");
  await srv.server.recorder.drain();
  const run = await srv.db.prisma.run.findFirstOrThrow({ where: { name: "http-step" }, include: { trajectories: true } });
  assert.deepEqual(run.trajectories.map((t) => t.status).sort(), ["ok", "truncated"]);
  const health = await (await fetch(`${srv.url}/envs/guess-number/health`)).json();
  assert.deepEqual(health, { status: "healthy" });
  const schema = await (await fetch(`${srv.url}/envs/guess-number/schema`)).json();
  assert.deepEqual(Object.keys(schema).sort(), ["action", "observation", "reset", "state"]);
  assert.ok(schema.action.properties.message, "the action schema names message");
});

test("bad input is a 4xx or an OpenEnv error naming the problem, and the session survives it", async () => {
  const unknown = await fetch(`${srv.url}/envs/chess/reset`, { method: "POST" });
  assert.equal(unknown.status, 404);
  assert.match((await unknown.json()).detail, /Unknown environment "chess"\. Valid names: .*guess-number/);
  await assert.rejects(RolloutLabEnv.connect(`${srv.url}/envs/chess`), /cannot open a session/);
  assert.equal((await fetch(`${srv.url}/nowhere`)).status, 404);
  assert.equal((await fetch(`${srv.url}/envs/guess-number/reset`)).status, 405);
  const badOptions = await fetch(`${srv.url}/envs/guess-number/reset`, { method: "POST", body: JSON.stringify({ options: { max: 1 } }) });
  assert.equal(badOptions.status, 422);
  assert.match((await badOptions.json()).detail, /^options: .*max/);
  const notJson = await fetch(`${srv.url}/envs/guess-number/step`, { method: "POST", body: "{" });
  assert.equal(notJson.status, 400);
  const tooBig = await fetch(`${srv.url}/envs/guess-number/step`, {
    method: "POST",
    body: JSON.stringify({ action: { message: "x".repeat(70_000) } }),
  });
  assert.equal(tooBig.status, 413);

  const peer = await openRaw(`${srv.url}/envs/bfcl/ws`);
  assert.equal((await peer.request({ type: "step", data: { message: "hi" } })).data.code, "EXECUTION_ERROR", "step before reset");
  peer.send("{nope");
  assert.equal((await peer.next()).data.code, "INVALID_JSON");
  assert.equal((await peer.request({ type: "dance" })).data.code, "UNKNOWN_TYPE");
  const noTask = await peer.request({ type: "reset", data: { task_id: "no-such-task" } });
  assert.equal(noTask.data.code, "VALIDATION_ERROR");
  assert.equal(noTask.data.status, 404);
  assert.match(String(noTask.data.message), /no task "no-such-task"/);
  const unknownField = await peer.request({ type: "reset", data: { seeed: 1 } });
  assert.match(String(unknownField.data.message), /seeed/);
  assert.equal((await peer.request({ type: "reset", data: { seed: 0 } })).type, "observation");
  const badAction = await peer.request({ type: "step", data: { text: "hi" } });
  assert.equal(badAction.data.code, "VALIDATION_ERROR");
  assert.match(String(badAction.data.message), /action/);
  const big = await peer.request({ type: "step", data: { message: "y".repeat(70_000) } });
  assert.equal(big.data.status, 413);
  const after = await peer.request({ type: "step", data: { message: "I will look into it." } });
  assert.equal(after.type, "observation", "the oversize message was skipped, the session goes on");
  peer.send({ type: "close" });
  assert.equal((await peer.closed).code, 1000);
});

test("environment options and a dataset inside the data roots shape the episode; a path outside them is 422 naming dataset", async () => {
  const small = await (
    await fetch(`${srv.url}/envs/guess-number/reset`, { method: "POST", body: JSON.stringify({ options: { max: 4 } }) })
  ).json();
  assert.equal(small.observation.messages[0].content, "Guess 1-4");
  cpSync(path.join(import.meta.dirname, "../fixtures/tau2-mock"), path.join(srv.dataDir, "datasets", "tau2-mock"), { recursive: true });
  const env = await RolloutLabEnv.connect(`${srv.url}/envs/tau2-retail`);
  const mock = await env.reset({ dataset: "tau2-mock", seed: 0 });
  const mockTasks = JSON.parse(readFileSync(path.join(import.meta.dirname, "../fixtures/tau2-mock/tasks.json"), "utf8")) as {
    id: string;
  }[];
  assert.ok(
    mockTasks.some((t) => mock.observation.task_id.endsWith(t.id)),
    `a task of the mock domain (${mock.observation.task_id})`,
  );
  await assert.rejects(env.reset({ dataset: "/etc" }), (e: Error) => /dataset: .*outside the folders/.test(e.message));
  await assert.rejects(env.reset({ dataset: "../secrets" }), (e: Error) => /dataset/.test(e.message));
  await env.close();
});

test("a session is reachable by its id only on its own environment: elsewhere, or unknown, it is 404", async () => {
  const env = await RolloutLabEnv.connect(`${srv.url}/envs/guess-number`);
  const { observation } = await env.reset({ seed: 2 });
  const mine = await fetch(`${srv.url}/envs/guess-number/state?session_id=${observation.session_id}`);
  assert.equal(mine.status, 200);
  assert.equal((await mine.json()).episode_id, observation.episode_id);
  const other = await fetch(`${srv.url}/envs/bfcl/state?session_id=${observation.session_id}`);
  assert.equal(other.status, 404, "another environment's URL does not reach it either");
  await assert.rejects(
    RolloutLabEnv.connect(`${srv.url}/envs/guess-number`, { sessionId: "00000000-0000-0000-0000-000000000000" }),
    /cannot open a session/,
  );
  await env.close();
});
