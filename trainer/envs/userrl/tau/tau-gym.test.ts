/**
 * The Tau gym against tau-bench's own environment. tests/fixtures/parity/taugym-{retail,airline}.json were computed
 * by tau-bench's Python code (scripts/parity/taugym_parity.py) on TauGym's 115 retail and 50 airline test tasks: what
 * each gold action returned, and the reward of four plays. The tasks whose records are in the vendored sample
 * (tests/fixtures/userrl/tau: 34 retail and 14 airline tasks with tau-bench's data for them) run here; TAUGYM_DATA
 * pointing at a folder with TauGym's tau_test.json and tau-bench's data beside it (retail/, airline/) runs all 165.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatasetError, type EpisodeContext, type LlmChat, type Task } from "../../types";
import { loadTauGymTasks, readTauData, type TauGymTask } from "./tau-data";
import { forkData, type TauData } from "./tool-core";
import { runDomainTool, TERMINATE_TOOLS, type TauDomainName } from "./domains";
import { tauBenchVerdict } from "./tau-gym";
import { createTauGymEnvironment } from "./index";
import { sharedData } from "../../../../tests/fixtures/shared-data";

const REPO = path.resolve(import.meta.dirname, "../../../..");
const DATA = process.env.TAUGYM_DATA ?? path.join(REPO, "tests/fixtures/userrl/tau");
type Text = string | { sha256: string; head: string };
type Fixture = { tasks: { id: string; results: Text[]; rewards: Record<string, number> }[] };
const fixtureOf = (domain: TauDomainName) =>
  JSON.parse(readFileSync(path.join(REPO, `tests/fixtures/parity/taugym-${domain}.json`), "utf8")) as Fixture;
const fixture = fixtureOf("retail");
const same = (got: string, want: Text) =>
  typeof want === "string" ? got === want : createHash("sha256").update(got).digest("hex") === want.sha256;

const llm: LlmChat = { chat: async (req) => ({ text: req.offline ? await req.offline() : "", callId: "x" }) };
const ctx = (maxTurns = 30): EpisodeContext => ({ seed: 0, llm, maxTurns });

function replay(data: TauData, actions: TauGymTask["actions"], domain: TauDomainName = "retail") {
  const w = forkData(data);
  const results = actions.map((a) => runDomainTool(domain, w, a.name, a.kwargs));
  return { w, results };
}

for (const domain of ["retail", "airline"] as const) {
  test(`${domain}: every gold action returns what tau-bench's tool returns, and tau-bench's reward comes out for four plays of each task`, async () => {
    const tasks = (await loadTauGymTasks(path.join(DATA, "tau_test.json"))).filter((t) => t.data.domain === domain);
    assert.ok(tasks.length >= (domain === "retail" ? 34 : 14), `${tasks.length} ${domain} tasks`);
    const data = readTauData(path.join(DATA, domain), domain);
    const byId = new Map(fixtureOf(domain).tasks.map((t) => [t.id, t]));
    const writes = /^(cancel|exchange|modify|return|book|send|update)_/;
    const differing: string[] = [];
    let results = 0;
    let plays = 0;
    for (const { data: task } of tasks) {
      const want = byId.get(task.taskId)!;
      const gold = replay(data, task.actions, domain);
      gold.results.forEach((r, i) => {
        results++;
        if (!same(r, want.results[i])) differing.push(`${task.taskId} action ${i} (${task.actions[i].name}): ${r.slice(0, 160)}`);
      });
      const expected = replay(
        data,
        task.actions.filter((a) => !TERMINATE_TOOLS.includes(a.name)),
        domain,
      ).w;
      const writeAt = task.actions.map((a, i) => (writes.test(a.name) ? i : -1)).filter((i) => i >= 0);
      const say = [`Here you are: ${task.outputs.join("; ")}`];
      const variants: Record<string, { actions: TauGymTask["actions"]; said: string[] }> = {
        gold: { actions: task.actions, said: say },
        no_outputs: { actions: task.actions, said: [] },
        reversed: { actions: [...task.actions].reverse(), said: say },
      };
      if (writeAt.length) variants.drop_last_write = { actions: task.actions.filter((_, i) => i !== writeAt.at(-1)), said: say };
      for (const [name, play] of Object.entries(variants)) {
        // As TauGym plays it: the outputs said first, then the actions; a transfer ends the conversation there.
        const end = play.actions.findIndex((a) => TERMINATE_TOOLS.includes(a.name));
        const taken = end < 0 ? play.actions : play.actions.slice(0, end);
        const reward = tauBenchVerdict(task, replay(data, taken, domain).w, expected, play.said, "user_stop").reward;
        plays++;
        if (reward !== want.rewards[name]) differing.push(`${task.taskId} ${name}: tau-bench ${want.rewards[name]}, here ${reward}`);
      }
    }
    assert.deepEqual(differing, []);
    console.log(`taugym ${domain} parity: ${results} of ${results} gold results, ${plays} of ${plays} play rewards as tau-bench's`);
  });
}

async function play(env: ReturnType<typeof createTauGymEnvironment>, task: Task<TauGymTask>, messages: string[], maxTurns = 30) {
  const ep = env.createEpisode(task, ctx(maxTurns));
  await ep.reset();
  const seen: string[] = [];
  let last;
  for (const [turn, m] of messages.entries()) {
    last = await ep.step(m, turn);
    seen.push(...last.observations.map((o) => o.content));
    if (last.done) break;
  }
  return { ep, seen, last: last!, evaluation: await ep.evaluate(last!.endReason ?? "max_turns") };
}

test("a builtin task played by the scripted solver ends with the customer's stop and reward 1; the turn reward lands on that turn", async () => {
  const env = createTauGymEnvironment({ rewardInObservation: false });
  for (const task of env.builtinTasks()) {
    const solution = [
      ...task.data.actions.map((a) => `[answer] ${JSON.stringify({ name: a.name, arguments: a.kwargs })}`),
      `[action] All done. ${task.data.outputs.join("; ")}`,
    ];
    const { last, evaluation } = await play(env, task, solution);
    assert.equal(last.done, true, task.id);
    assert.equal(last.turnReward, 1, task.id);
    assert.equal(evaluation.reward, 1, `${task.id}: ${evaluation.reasoning}`);
  }
});

test("finishing before the customer stops scores 0 and says why; a wrong write leaves the customer unsatisfied", async () => {
  const env = createTauGymEnvironment({ rewardInObservation: false });
  const [task] = env.builtinTasks();
  const early = await play(env, task, ["[search] tools", "[finish]"]);
  assert.equal(early.evaluation.reward, 0);
  assert.match(early.evaluation.reasoning, /never ended.*TauGym scores 0/);
  assert.match(early.seen[0], /^Available Tools:\n- calculate: /);
  assert.equal(early.seen[0].split("\n").filter((l) => /^- \w+: /.test(l)).length, 16, "tau-bench's 16 retail tools");

  const again = await play(env, task, [
    "[search] tools",
    "[search] tools",
    "[answer] not json",
    '[answer] {"name": "get_order_details", "arguments": {"order_id": "#nope"}}',
  ]);
  assert.match(again.seen[1], /listed earlier/);
  assert.match(again.seen[2], /Invalid tool call format/);
  assert.equal(again.seen[3], "Error: order not found");

  const transfer = await play(env, task, [
    '[answer] {"name": "transfer_to_human_agents", "arguments": {"summary": "customer wants help"}}',
  ]);
  assert.equal(transfer.last.done, true, "a transfer ends the conversation");
  assert.equal(transfer.evaluation.reward, 0, "nothing was done, so the data differs from the gold actions' result");
  assert.match(transfer.evaluation.reasoning, /transfer to a human: data differs/);
});

test("TauGym's task file: retail and airline tasks load with each domain's data beside it; without the data the error names the folder", async () => {
  const tasks = await loadTauGymTasks(path.join(DATA, "tau_test.json"));
  assert.ok(tasks.every((t) => t.data.taskId.startsWith(t.data.domain) && t.split === "test"));
  assert.deepEqual([...new Set(tasks.map((t) => t.data.domain))].sort(), ["airline", "retail"]);
  const dir = mkdtempSync(path.join(tmpdir(), "taugym-"));
  writeFileSync(path.join(dir, "tau_test.json"), readFileSync(path.join(DATA, "tau_test.json")));
  await assert.rejects(
    loadTauGymTasks(path.join(dir, "tau_test.json")),
    (e: unknown) => e instanceof DatasetError && /retail data in .*retail/.test(e.message),
  );
  cpSync(path.join(DATA, "retail"), path.join(dir, "retail"), { recursive: true });
  writeFileSync(
    path.join(dir, "bad.json"),
    JSON.stringify([{ id: "retail-x", obs: "hi", info: { task: { user_id: "u", actions: "none", instruction: "i" } } }]),
  );
  await assert.rejects(
    loadTauGymTasks(path.join(dir, "bad.json")),
    (e: unknown) => e instanceof DatasetError && /record 0.*info\.task\.actions/.test(e.message),
  );
});

test("a loaded TauGym task plays to reward 1 on tau-bench's data when the solver does the gold actions and says the outputs", async () => {
  const env = createTauGymEnvironment({ rewardInObservation: false });
  const loaded = await env.loadTasks!(path.join(DATA, "tau_test.json"));
  const tasks = [
    ...loaded.filter((t) => t.data.domain === "retail" && t.data.outputs.length > 0).slice(0, 2),
    ...loaded.filter((t) => t.data.domain === "airline" && !t.data.actions.some((a) => TERMINATE_TOOLS.includes(a.name))).slice(0, 2),
  ];
  assert.ok(tasks.length > 0);
  for (const task of tasks) {
    const solution = [
      ...task.data.actions.map((a) => `[answer] ${JSON.stringify({ name: a.name, arguments: a.kwargs })}`),
      `[action] Done: ${task.data.outputs.join("; ")}.`,
    ];
    const { evaluation } = await play(env, task, solution, 40);
    assert.equal(evaluation.reward, 1, `${task.id}: ${evaluation.reasoning}`);
  }
});

test("on τ²-bench's retail db.json instead of tau-bench's files the rewards are the same (records print in τ²'s key order)", async () => {
  const tau2 = sharedData("data/tau2/retail");
  const data = readTauData(tau2.dir, "retail");
  const tasks = (await loadTauGymTasks(path.join(DATA, "tau_test.json"))).filter((t) => t.data.userId in data.users);
  assert.ok(tasks.length >= 34);
  const byId = new Map(fixture.tasks.map((t) => [t.id, t]));
  for (const { data: task } of tasks) {
    const gold = replay(data, task.actions);
    const said = [`Here you are: ${task.outputs.join("; ")}`];
    const expected = replay(
      data,
      task.actions.filter((a) => !TERMINATE_TOOLS.includes(a.name)),
    ).w;
    const end = task.actions.findIndex((a) => TERMINATE_TOOLS.includes(a.name));
    const taken = end < 0 ? gold.w : replay(data, task.actions.slice(0, end)).w;
    assert.equal(tauBenchVerdict(task, taken, expected, said, "user_stop").reward, byId.get(task.taskId)!.rewards.gold, task.taskId);
    assert.equal("user_id" in data.users[task.userId], false, "τ²'s added user_id is dropped");
  }
});
