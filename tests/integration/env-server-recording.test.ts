/**
 * Served episodes are ordinary trajectories to the dashboard: the group view, the signals and re-judging work on
 * them unchanged. A session may bring its own simulator / judge endpoints, under the run config's endpoint policy
 * (ROLLOUT_LAB_LLM_BASE_URLS, the apiKeyEnv rules): its calls go to that endpoint and are recorded with the episode.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { RolloutLabEnv, RolloutLabEnvError } from "../../clients/typescript/rollout-lab-env";
import { createCaller } from "../../server/api/root";
import { createToken } from "../../server/services/tokens";
import { createTrpcContext } from "../../server/api/trpc";
import { runOneRescoring } from "../../trainer/rescore/loop";
import { startFakeLlmServer, type FakeLlmServer } from "../../trainer/llm/fake-server/server";
import { goldEpisodes, startTestEnvServer, type TestEnvServer } from "./helpers/env-server";

let srv: TestEnvServer;
let llm: FakeLlmServer;
/** A session naming endpoints needs a write token, even on loopback (access.ts). */
let writer: string;
const savedPolicy = process.env.ROLLOUT_LAB_LLM_BASE_URLS;
before(async () => {
  srv = await startTestEnvServer();
  llm = await startFakeLlmServer({ reply: () => "Thanks. I'd like to cancel my order, please." });
  process.env.ROLLOUT_LAB_LLM_BASE_URLS = llm.url;
  writer = (await createToken(srv.db.prisma, { name: "operator", scopes: ["write"] })).token;
});
after(async () => {
  process.env.ROLLOUT_LAB_LLM_BASE_URLS = savedPolicy;
  if (savedPolicy === undefined) delete process.env.ROLLOUT_LAB_LLM_BASE_URLS;
  await srv?.close();
  await llm?.close();
});

test("a group of served episodes: group view with its mean and spread, signals, and a re-judging job over them", async () => {
  const gold = (await goldEpisodes("userrl-telepathy"))[0];
  const play = async (good: boolean) => {
    const env = await RolloutLabEnv.connect(`${srv.url}/envs/userrl-telepathy`);
    let r = await env.reset({ task_id: gold.taskId, experiment: "grouped", group: "step0-prompt0", step: 0, max_turns: 4 });
    for (const a of good ? gold.actions : [{ message: "I have no idea." }]) {
      r = await env.step(a);
      if (r.done) break;
    }
    await env.close();
    return r.reward;
  };
  const rewards = await Promise.all([play(true), play(true), play(false), play(false)]);
  assert.deepEqual(rewards.map((r) => (r === 1 ? 1 : 0)).sort(), [0, 0, 1, 1]);
  await srv.server.recorder.drain();

  const caller = createCaller(createTrpcContext(srv.db.prisma));
  const run = await srv.db.prisma.run.findFirstOrThrow({ where: { name: "grouped" } });
  const groups = await caller.groups.list({ runId: run.id });
  assert.equal(groups.items.length, 1);
  const group = await caller.groups.get({ runId: run.id, groupId: groups.items[0].id });
  assert.equal(group.samples.length, 4);
  assert.ok(group.rewardStd !== null && group.rewardStd > 0, `the group's spread is computed (${group.rewardStd})`);
  const health = await caller.signals.health({ runId: run.id });
  assert.ok(health, "the run's signals are computed");

  const job = await caller.rescoring.create({
    runId: run.id,
    selection: { stepMin: 0, stepMax: 0 },
    scorer: { kind: "judge", offline: { threshold: 1 } },
  });
  assert.equal(await runOneRescoring(srv.db.prisma, "test-worker"), true);
  const result = await caller.rescoring.get({ runId: run.id, rescoringId: job.id });
  assert.equal(result.job.status, "succeeded", result.job.error ?? "");
  assert.equal(result.rows.length, 4);
});

test("a session's own user simulator endpoint serves its turns, and the calls are recorded with the episode", async () => {
  const before = llm.stats.completed;
  const env = await RolloutLabEnv.connect(`${srv.url}/envs/tau2-retail`, { token: writer });
  const opened = await env.reset({ seed: 0, experiment: "own-llm", llm: { userSimulator: { baseUrl: llm.url, model: "fake-user" } } });
  const r = await env.step({ message: "Hello! How can I help you today?" });
  assert.equal(r.observation.messages[0].content, "Thanks. I'd like to cancel my order, please.");
  assert.ok(llm.stats.completed > before, "the fake endpoint was called");
  await env.close();
  await srv.server.recorder.drain();
  const t = await srv.db.prisma.trajectory.findUniqueOrThrow({ where: { id: opened.observation.trajectory_id } });
  assert.equal(t.endReason, "client_ended");
  const calls = await srv.db.prisma.llmCall.findMany({ where: { trajectoryId: t.id, role: "user_simulator" } });
  assert.ok(
    calls.some((c) => c.model === "fake-user" && c.endpoint.startsWith("http://127.0.0.1")),
    JSON.stringify(calls.map((c) => [c.model, c.endpoint])),
  );
});

test("session endpoints follow the run config's policy: a URL outside ROLLOUT_LAB_LLM_BASE_URLS or a product variable as apiKeyEnv is 422 naming the field", async () => {
  const env = await RolloutLabEnv.connect(`${srv.url}/envs/tau2-retail`, { token: writer });
  await assert.rejects(
    env.reset({ llm: { judge: { baseUrl: "https://attacker.example/v1", model: "m" } } }),
    (e: RolloutLabEnvError) =>
      e.code === "VALIDATION_ERROR" && e.data.field === "llm.judge.baseUrl" && /not an allowed LLM endpoint/.test(e.message),
  );
  await assert.rejects(
    env.reset({ llm: { userSimulator: { baseUrl: llm.url, model: "m", apiKeyEnv: "DATABASE_URL" } } }),
    (e: RolloutLabEnvError) => e.data.field === "llm.userSimulator.apiKeyEnv" && /Rollout Lab's own settings/.test(e.message),
  );
  await assert.rejects(
    env.reset({ llm: { userSimulator: { baseUrl: "not a url", model: "m" } } }),
    (e: RolloutLabEnvError) => e.code === "VALIDATION_ERROR" && String(e.data.field).startsWith("llm.userSimulator.baseUrl"),
  );
  const ok = await env.reset({ seed: 1 });
  assert.equal(ok.done, false, "the session still works");
  await env.close();
});
