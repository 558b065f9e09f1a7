/**
 * The τ²-bench mock domain against τ²'s own Python (tests/fixtures/parity/tau2-mock.json, made by
 * scripts/parity/tau2_mock_parity.py): each task's initial state (initialization data, initialization actions, the
 * initial conversation's write calls), the gold calls' outputs, τ²'s database hashes and its assertion functions —
 * and the folder imports and plays as an environment.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { LlmChat } from "../types";
import { createTau2RetailEnvironment, loadTau2Domain } from "./index";
import type { Tau2DomainTools } from "./domain";
import { mockDomain as mockTools } from "./mock-domain";

const mockDomain = mockTools as Tau2DomainTools;
import { envAssertionChecks, initialCopy, replayGoldActions } from "./tau2-episode";

const REPO = path.resolve(import.meta.dirname, "../../..");
const DIR = path.join(REPO, "tests/fixtures/tau2-mock");
interface Call {
  name: string;
  arguments: Record<string, unknown>;
  content: string;
  error: boolean;
}
const fixture = JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity/tau2-mock.json"), "utf8")) as {
  tasks: {
    id: string;
    initial_db_hash: string;
    calls: Call[];
    db_hash: string;
    assertions: { func_name: string; arguments: Record<string, unknown>; assert_value: boolean; met: boolean }[];
    extra_calls: Call[];
    db_hash_after_extra: string;
  }[];
};
const llm: LlmChat = { chat: async (req) => ({ text: req.offline ? await req.offline() : "", callId: "c" }) };

test("τ²'s mock folder imports: 9 tasks, and the one needing the user's own tools is left out with the reason", async () => {
  const domain = await loadTau2Domain(DIR);
  assert.equal(domain.domain, "mock");
  assert.equal(domain.tasks.length, 9);
  assert.deepEqual(
    domain.skipped.map((s) => s.id),
    ["update_task_with_user_tools"],
  );
  assert.match(domain.skipped[0].reason, /the user's own tools .* are not supported/);
  const tasks = await createTau2RetailEnvironment().loadTasks!(DIR);
  assert.ok(tasks.every((t) => t.id.startsWith("tau2-mock-") && t.tags.includes("mock")));
});

test("every mock task's initial state, gold outputs, database hashes and assertions are τ²'s", async () => {
  const domain = await loadTau2Domain(DIR);
  const db = domain.db;
  let compared = 0;
  for (const want of fixture.tasks) {
    const data = domain.tasks.find((t) => t.id === want.id)?.data;
    if (!data) continue; // the user-tools task, left out above
    const w = initialCopy(mockDomain, db, data);
    assert.equal(mockDomain.hash(w), want.initial_db_hash, `${want.id}: initial state`);
    for (const c of want.calls) {
      const out = mockDomain.runTool(w, c.name, c.arguments);
      assert.equal(out.content, c.content, `${want.id}: ${c.name}`);
      assert.equal(!out.ok, c.error);
    }
    assert.equal(mockDomain.hash(w), want.db_hash, `${want.id}: after the gold actions`);
    assert.equal(mockDomain.hash(replayGoldActions(mockDomain, db, data)), want.db_hash, `${want.id}: the gold replay`);
    assert.deepEqual(
      envAssertionChecks(mockDomain, w, data).map((c) => c.met),
      want.assertions.map((a) => a.met),
      `${want.id}: assertions`,
    );
    for (const c of want.extra_calls) {
      const out = mockDomain.runTool(w, c.name, c.arguments);
      assert.equal(out.content, c.content, `${want.id}: extra ${c.name}(${JSON.stringify(c.arguments)})`);
    }
    assert.equal(mockDomain.hash(w), want.db_hash_after_extra, `${want.id}: after the extra calls`);
    compared++;
  }
  assert.equal(compared, 9);
});

test("a mock task plays offline end to end: the gold call meets DB and ENV_ASSERTION; a conversation under way is shown", async () => {
  const env = createTau2RetailEnvironment();
  const tasks = await env.loadTasks!(DIR);
  const task = tasks.find((t) => t.data.taskId === "create_task_1_with_env_assertions")!;
  const ep = env.createEpisode(task, { seed: 1, llm, maxTurns: 10 });
  const opening = await ep.reset();
  assert.match(opening[0].content, /manages users' tasks/);
  assert.match(opening[0].content, /create_task/);
  const r = await ep.step(
    '<tool_call>{"name": "create_task", "arguments": {"user_id": "user_1", "title": "Important Meeting"}}</tool_call>',
    0,
  );
  assert.match(r.observations[0].content, /"task_id": "task_2"/);
  const ev = await ep.evaluate("user_done");
  assert.equal(ev.components.db, 1, ev.reasoning);
  assert.equal(ev.components.env_assertion, 1, ev.reasoning);
  const wrong = env.createEpisode(task, { seed: 1, llm, maxTurns: 10 });
  await wrong.reset();
  await wrong.step('<tool_call>{"name": "create_task", "arguments": {"user_id": "user_1", "title": "Other"}}</tool_call>', 0);
  assert.equal((await wrong.evaluate("user_done")).components.db, 0);
  const history = tasks.find((t) => t.data.taskId === "update_task_with_message_history")!;
  const opening2 = await env.createEpisode(history, { seed: 1, llm, maxTurns: 10 }).reset();
  assert.ok(
    opening2.some((m) => m.role === "assistant" && m.toolCalls?.[0]?.name === "create_task"),
    "the conversation under way is shown",
  );
});

test("an env assertion that raises (its task never created) leaves the episode unscored, as τ²'s evaluator does", async () => {
  const env = createTau2RetailEnvironment();
  const tasks = await env.loadTasks!(DIR);
  const task = tasks.find((t) => t.data.taskId === "create_task_1_with_env_assertions")!;
  const ep = env.createEpisode(task, { seed: 1, llm, maxTurns: 10 });
  await ep.reset();
  await ep.step("I could not do that.", 0);
  const ev = await ep.evaluate("user_done");
  assert.equal(ev.reward, null, ev.reasoning);
  assert.match(ev.reasoning, /assert_task_status.*raised "Task task_2 not found"/);
});
