import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatasetError, type EpisodeContext, type LlmChat, type Task } from "../types";
import { createTau2RetailEnvironment, type Tau2TaskData, type UserStrategy } from "./index";
import { sharedData } from "../../../tests/fixtures/shared-data";

const retail = sharedData("data/tau2/retail");
const RETAIL_DIR = retail.dir;

function offlineLlm(): LlmChat & { calls: number } {
  const llm = {
    calls: 0,
    async chat(req: Parameters<LlmChat["chat"]>[0]) {
      llm.calls += 1;
      if (!req.offline) throw new Error("no offline reply");
      return { text: await req.offline(), callId: `call-${llm.calls}` };
    },
  };
  return llm;
}

function ctx(llm: LlmChat, maxTurns = 40): EpisodeContext {
  return { seed: 1, llm, maxTurns };
}

function toolCallText(name: string, args: Record<string, unknown>): string {
  return `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
}

/** Plays the gold actions as policy tool calls, then tells the customer the required info. */
async function replayGold(env: ReturnType<typeof createTau2RetailEnvironment>, task: Task<Tau2TaskData>, strategy?: UserStrategy) {
  void strategy;
  const llm = offlineLlm();
  const ep = env.createEpisode(task, ctx(llm));
  const opening = await ep.reset();
  let turn = 0;
  for (const a of task.data.actions) {
    const r = await ep.step(toolCallText(a.name, a.arguments), turn++);
    assert.equal(r.observations[0].source, "tool");
    if (r.done) return { ep, opening, end: r.endReason, llm };
  }
  // A perfect agent also says what the task's assertions expect.
  const info = [...task.data.communicateInfo, ...task.data.nlAssertions].join(" ");
  const r = await ep.step(`All done. ${info}`.trim(), turn++);
  return { ep, opening, end: r.endReason, last: r.observations, llm };
}

/** Offline, a task whose reward needs its natural-language assertions cannot be scored (no judge to read them). */
const needsNlJudge = (task: Task<Tau2TaskData>) => task.data.nlAssertions.length > 0 && task.data.rewardBasis.includes("NL_ASSERTION");

test("builtin tasks: replaying the gold actions scores 1 (unscored offline where NL assertions count) and the offline customer ends with ###STOP###", async () => {
  const env = createTau2RetailEnvironment();
  for (const task of env.builtinTasks()) {
    const { ep, opening, end, last } = await replayGold(env, task);
    assert.equal(opening[0].source, "system");
    assert.match(opening[0].content, /find_user_id_by_email/);
    assert.equal(opening[1].source, "user_simulator");
    assert.equal(end, "user_done", `${task.id} ended with ${end}`);
    assert.match(last?.[0].content ?? "", /###STOP###/);
    const ev = await ep.evaluate("user_done");
    assert.equal(ev.reward, needsNlJudge(task) ? null : 1, `${task.id}: ${ev.reasoning}`);
  }
});

test("real τ² retail tasks: gold replay scores 1 (DB, COMMUNICATE, ACTION all met)", async () => {
  const env = createTau2RetailEnvironment();
  const tasks = await env.loadTasks!(RETAIL_DIR);
  // The full set has 114 tasks, 40 of them held out; the vendored sample has 10 training tasks.
  assert.equal(tasks.length, retail.full ? 114 : 10);
  assert.equal(tasks.filter((t) => t.split === "test").length, retail.full ? 40 : 0);
  const picked = tasks;
  for (const task of picked) {
    const { ep } = await replayGold(env, task);
    const ev = await ep.evaluate("user_done");
    assert.equal(ev.components.db, 1, `task ${task.data.taskId}: ${ev.reasoning}`);
    assert.equal(ev.components.action, 1, `task ${task.data.taskId}: ${ev.reasoning}`);
    assert.equal(ev.components.communicate, 1, `task ${task.data.taskId}: ${ev.reasoning}`);
    // NL assertions need a judge: offline those tasks are unscored, never passed.
    assert.equal(ev.reward, needsNlJudge(task) ? null : 1, `task ${task.data.taskId}: ${ev.reasoning}`);
    assert.ok(ev.expectedState && ev.finalState, "changed records exposed for diffing");
  }
});

test("a wrong write action scores 0 and the diff shows the order that differs", async () => {
  const env = createTau2RetailEnvironment();
  const tasks = await env.loadTasks!(RETAIL_DIR);
  const task = tasks.find((t) => t.data.taskId === "0")!;
  const llm = offlineLlm();
  const ep = env.createEpisode(task, ctx(llm));
  await ep.reset();
  let turn = 0;
  for (const a of task.data.actions) {
    // The customer wanted an exchange; the agent files a return of the same items instead.
    const wrong =
      a.name === "exchange_delivered_order_items"
        ? toolCallText("return_delivered_order_items", {
            order_id: a.arguments.order_id,
            item_ids: a.arguments.item_ids,
            payment_method_id: a.arguments.payment_method_id,
          })
        : toolCallText(a.name, a.arguments);
    const r = await ep.step(wrong, turn++);
    assert.doesNotMatch(r.observations[0].content, /^Error/);
  }
  const ev = await ep.evaluate("max_turns");
  assert.equal(ev.components.db, 0);
  assert.equal(ev.reward, 0);
  const final = ev.finalState as { orders: Record<string, { status: string }> };
  const expected = ev.expectedState as { orders: Record<string, { status: string }> };
  assert.equal(final.orders["#W2378156"].status, "return requested");
  assert.equal(expected.orders["#W2378156"].status, "exchange requested");
});

test("tools validate like τ²: a non-pending order cannot be cancelled and the database stays untouched", async () => {
  const env = createTau2RetailEnvironment();
  const task = env.builtinTasks()[0];
  const ep = env.createEpisode(task, ctx(offlineLlm()));
  await ep.reset();
  const r1 = await ep.step(toolCallText("cancel_pending_order", { order_id: "#H1000001", reason: "no longer needed" }), 0);
  assert.equal(r1.observations[0].content, "Error: Non-pending order cannot be cancelled");
  const r2 = await ep.step(toolCallText("cancel_pending_order", { order_id: "#H1000002", reason: "too expensive" }), 1);
  assert.equal(r2.observations[0].content, "Error: Invalid reason");
  const r3 = await ep.step(
    toolCallText("return_delivered_order_items", {
      order_id: "#H1000003",
      item_ids: ["6100000011"],
      payment_method_id: "credit_card_1200001",
    }),
    2,
  );
  assert.equal(r3.observations[0].content, "Error: Payment method not found");
  const r4 = await ep.step(
    toolCallText("exchange_delivered_order_items", {
      order_id: "#H1000001",
      item_ids: ["6100000011"],
      new_item_ids: ["6100000013"],
      payment_method_id: "credit_card_1200001",
    }),
    3,
  );
  assert.equal(r4.observations[0].content, "Error: New item 6100000013 not found or available");
  const ev = await ep.evaluate("max_turns");
  assert.equal(ev.components.db, 0, "nothing was cancelled");
  const final = ev.finalState as { orders: Record<string, { status: string }> };
  assert.equal(final.orders["#H1000002"].status, "pending", "failed calls left the order untouched");
});

test("each episode acts on its own copy of the database", async () => {
  const env = createTau2RetailEnvironment();
  const task = env.builtinTasks()[0];
  const a = env.createEpisode(task, ctx(offlineLlm()));
  const b = env.createEpisode(task, ctx(offlineLlm()));
  await a.reset();
  await b.reset();
  await a.step(toolCallText("cancel_pending_order", { order_id: "#H1000002", reason: "ordered by mistake" }), 0);
  const r = await b.step(toolCallText("get_order_details", { order_id: "#H1000002" }), 0);
  assert.match(r.observations[0].content, /"status": "pending"/);
});

test("offline customer: states the reason, gives known info when asked, confirms, in every strategy", async () => {
  for (const strategy of ["llm", "react", "verify", "reflection"] as const) {
    const env = createTau2RetailEnvironment({ userStrategy: strategy });
    const task = env.builtinTasks()[1];
    const llm = offlineLlm();
    const ep = env.createEpisode(task, ctx(llm));
    const opening = await ep.reset();
    assert.match(opening[1].content, /I received order #H1000001 and want to return the desk lamp/);
    const asked = await ep.step("Sure! Could you give me your email address so I can identify you?", 0);
    assert.match(asked.observations[0].content, /I don't remember my email\. I am Ines Okafor in zip code 04101\./, strategy);
    const confirm = await ep.step("I will return the desk lamp to gift card gift_card_1200002. Do you confirm (yes/no)?", 1);
    assert.equal(confirm.observations[0].content, "Yes, please go ahead.");
    const perReply = strategy === "verify" || strategy === "reflection" ? 2 : 1;
    assert.equal(llm.calls, 3 * perReply, `${strategy} makes ${perReply} LLM call(s) per customer message`);
    assert.equal(confirm.observations[0].llmCallIds?.length, perReply);
  }
});

test("transfer to a human ends the episode; turn budget caps at 20", async () => {
  const env = createTau2RetailEnvironment();
  const task = env.builtinTasks()[0];
  const ep = env.createEpisode(task, ctx(offlineLlm()));
  await ep.reset();
  const r = await ep.step(toolCallText("transfer_to_human_agents", { summary: "wants something else" }), 0);
  assert.equal(r.done, true);
  assert.equal(r.endReason, "env_terminal");
  const ep2 = env.createEpisode(task, ctx(offlineLlm(), 100));
  await ep2.reset();
  const last = await ep2.step(toolCallText("calculate", { expression: "1 + 1" }), 19);
  assert.equal(last.endReason, "max_turns");
});

test("malformed τ² files are rejected with DatasetError naming file and record", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "tau2-bad-"));
  copyFileSync(path.join(RETAIL_DIR, "db.json"), path.join(dir, "db.json"));
  writeFileSync(
    path.join(dir, "tasks.json"),
    JSON.stringify([
      { id: "x1", user_scenario: { instructions: { reason_for_call: "hi" } }, evaluation_criteria: { actions: [{ arguments: {} }] } },
    ]),
  );
  const env = createTau2RetailEnvironment();
  await assert.rejects(
    env.loadTasks!(dir),
    (e: unknown) =>
      e instanceof DatasetError &&
      /tasks\.json/.test(e.message) &&
      /record 0 \(id x1\)/.test(e.message) &&
      /action 0 has no "name"/.test(e.message),
  );
  writeFileSync(path.join(dir, "db.json"), JSON.stringify({ users: {}, orders: { "#W1": { status: "pending" } }, products: {} }));
  await assert.rejects(
    env.loadTasks!(dir),
    (e: unknown) => e instanceof DatasetError && /db\.json/.test(e.message) && /orders\.#W1/.test(e.message),
  );
  writeFileSync(path.join(dir, "db.json"), "{ not json");
  // An airline task beside a retail database is refused, never imported against the wrong tools.
  copyFileSync(path.join(RETAIL_DIR, "db.json"), path.join(dir, "db.json"));
  writeFileSync(
    path.join(dir, "tasks.json"),
    JSON.stringify([
      {
        id: "a1",
        user_scenario: { instructions: { domain: "airline", reason_for_call: "change my flight" } },
        evaluation_criteria: { actions: [] },
      },
    ]),
  );
  await assert.rejects(
    env.loadTasks!(dir),
    (e: unknown) =>
      e instanceof DatasetError && /tasks\.json/.test(e.message) && /a task of domain "airline" beside a retail database/.test(e.message),
  );
  writeFileSync(
    path.join(dir, "tasks.json"),
    JSON.stringify([
      {
        id: "t1",
        user_scenario: { instructions: { domain: "telecom", reason_for_call: "my phone" } },
        evaluation_criteria: { actions: [] },
      },
    ]),
  );
  await assert.rejects(
    env.loadTasks!(dir),
    (e: unknown) => e instanceof DatasetError && /domain "telecom" is not supported; supported: retail, airline, mock/.test(e.message),
  );
  writeFileSync(path.join(dir, "db.json"), "{ not json");
  await assert.rejects(env.loadTasks!(dir), (e: unknown) => e instanceof DatasetError && /not valid JSON/.test(e.message));
});

test("config is validated: an unknown strategy or option names the problem", () => {
  assert.throws(() => createTau2RetailEnvironment({ userStrategy: "psychic" }), /tau2-retail environment config: userStrategy/);
  assert.throws(() => createTau2RetailEnvironment({ maxTurn: 5 }), /Unrecognized key/);
});

test("τ²'s stop rule: a gold replay cut by the turn budget scores 0 even with the right database; stopped by the user it scores 1", async () => {
  const env = createTau2RetailEnvironment();
  const task = env.builtinTasks()[0];
  const ep = env.createEpisode(task, ctx(offlineLlm(), task.data.actions.length));
  await ep.reset();
  let end: string | undefined;
  for (const [turn, a] of task.data.actions.entries()) {
    const r = await ep.step(toolCallText(a.name, a.arguments), turn);
    if (r.done) end = r.endReason;
  }
  assert.equal(end, "max_turns");
  const cut = await ep.evaluate("max_turns");
  assert.equal(cut.components.db, 1, "the database is right");
  assert.equal(cut.components.stopped, 0);
  assert.equal(cut.reward, 0);
  assert.match(cut.reasoning, /ended by max_turns, and τ² scores only episodes that the agent or the user stopped/);
  const { ep: full } = await replayGold(env, task);
  const stopped = await full.evaluate("user_done");
  assert.equal(stopped.reward, 1);
  assert.equal(stopped.components.stopped, 1);
});
