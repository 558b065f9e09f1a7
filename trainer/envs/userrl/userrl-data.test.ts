/**
 * UserRL's own data files import for every gym (samples in tests/fixtures/userrl, Apache-2.0, from
 * SalesforceAIResearch/UserRL's gym data folders; USERRL_DATA=<UserRL>/gyms checks the full files), and the imported
 * tasks play offline.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LlmChat } from "../types";
import { DatasetError } from "../types";
import { createUserRlEnvironment } from "./index";
import { applyRule } from "./arithmetic-rule";

/** These tests read the gym's own feedback; UserRL's "\nReward: …" suffix is tested in userrl-parity.test.ts. */
const FEEDBACK_ONLY = { rewardInObservation: false };

const SAMPLES = path.resolve(import.meta.dirname, "../../../tests/fixtures/userrl");
const llm: LlmChat = { chat: async (req) => ({ text: req.offline ? await req.offline() : "", callId: "c" }) };

test("FunctionGym's functions.json: every rule gives its expected_result (Python arithmetic, 1 ** 10 ** 27 included)", async () => {
  const full = process.env.USERRL_DATA ? path.join(process.env.USERRL_DATA, "FunctionGym/functiongym/data/functions.json") : null;
  const file = full && existsSync(full) ? full : path.join(SAMPLES, "functions.json");
  const raw = JSON.parse(await readFile(file, "utf8")) as { id: string; expected_result: number }[];
  const tasks = await createUserRlEnvironment("function", FEEDBACK_ONLY).loadTasks!(file);
  assert.equal(tasks.length, raw.length, "all of them import (538 in UserRL's file)");
  for (const [i, t] of tasks.entries()) assert.ok(Math.abs(applyRule(t.data.rule, t.data.testCase) - raw[i].expected_result) < 1e-4, t.id);
  assert.ok(
    tasks.some((t) => t.data.rule.includes("**")),
    "powers are in the language",
  );
  // A record whose stored result disagrees with its rule is refused, naming file and record.
  const dir = await mkdtemp(path.join(tmpdir(), "userrl-fn-"));
  const bad = path.join(dir, "functions.json");
  await writeFile(bad, JSON.stringify([{ id: "func-x", rule: "a + b", test_case: [1, 2, 3, 4], expected_result: 4.0 }]));
  await assert.rejects(
    createUserRlEnvironment("function", FEEDBACK_ONLY).loadTasks!(bad),
    (e: unknown) =>
      e instanceof DatasetError && /functions\.json \(record func-x\): the rule gives 3 .* expected_result is 4/.test(e.message),
  );
});

test("IntentionGym's file: details with their importance; a test file is the test split; asking earns the importance reward", async () => {
  const env = createUserRlEnvironment("intention", FEEDBACK_ONLY);
  const tasks = await env.loadTasks!(path.join(SAMPLES, "all_intentions_test.json"));
  assert.equal(tasks.length, 8);
  assert.ok(tasks.every((t) => t.split === "test"));
  const t = tasks[0];
  assert.equal(t.data.request, "Find the latest research on diabetes treatment.");
  const d = t.data.details[0];
  const ep = env.createEpisode(t, { seed: 1, llm, maxTurns: 5 });
  await ep.reset();
  const r = await ep.step(`[action] Could you tell me about the ${d.keywords[0]}?`, 0);
  assert.equal(r.observations[0].content, d.answer, "the offline user answers with UserRL's first option");
  assert.equal(r.turnReward, ({ 3: 1, 2: 0.7, 1: 0.4 } as const)[d.importance]);
});

test("TelepathyGym's file: the entity is guessed by its title; the offline user answers from its description", async () => {
  const env = createUserRlEnvironment("telepathy", FEEDBACK_ONLY);
  const tasks = await env.loadTasks!(path.join(SAMPLES, "all_entities_refined.json"));
  assert.equal(tasks.length, 8);
  const einstein = tasks.find((t) => t.data.entity === "Albert Einstein")!;
  assert.match(einstein.data.description ?? "", /theory of relativity/);
  const ep = env.createEpisode(einstein, { seed: 1, llm, maxTurns: 5 });
  await ep.reset();
  assert.equal((await ep.step("[action] Is it known for relativity?", 0)).observations[0].content, "Yes");
  assert.notEqual(
    (await ep.step("[action] Is it a kind of soup?", 1)).observations[0].content,
    "Yes",
    "nothing in the description says soup",
  );
  const win = await ep.step("[answer] Albert Einstein", 2);
  assert.equal(win.turnReward, 1);
});

test("TurtleGym's file: surface, bottom and the story's own weighted evaluation criteria; covering them all earns 1", async () => {
  const env = createUserRlEnvironment("turtle", FEEDBACK_ONLY);
  const file = path.join(SAMPLES, "all_stories_refined.json");
  const tasks = await env.loadTasks!(file);
  assert.equal(tasks.length, 6);
  const t = tasks[0];
  assert.match(t.data.surface, /daughter asked me where her sister went/);
  const raw = JSON.parse(await readFile(file, "utf8")) as Record<string, { evaluation: { statement: string; score: number }[] }>;
  assert.deepEqual(
    t.data.criteria.map((c) => [c.statement, c.weight]),
    raw["5"].evaluation.map((c) => [c.statement, c.score]),
  );
  const ep = env.createEpisode(t, { seed: 1, llm, maxTurns: 5 });
  await ep.reset();
  const solved = await ep.step(`[answer] ${t.data.criteria.map((c) => c.statement).join(" ")}`, 0);
  assert.ok(Math.abs((solved.turnReward ?? 0) - 1) < 1e-9, `an answer telling every point earns 1 (got ${solved.turnReward})`);
});

test("PersuadeGym's statements import from UserRL's persuasion parquet files (42 test + 378 train = 420 with USERRL_DATA)", async () => {
  const env = createUserRlEnvironment("persuade", FEEDBACK_ONLY);
  const sample = await env.loadTasks!(path.join(SAMPLES, "persuasion_multiturn_test.parquet"));
  assert.equal(sample.length, 42);
  assert.ok(sample.every((t) => t.split === "test"));
  const first = sample.find((t) => t.id === "YV3MRNMKH6MV")!;
  assert.equal(first.data.claim, "Anti-aging therapies should be made available even if expensive");
  assert.match(first.data.argument, /^While anti-aging therapies would likely be expensive/);
  const full = process.env.USERRL_DATA ? path.join(process.env.USERRL_DATA, "../data/persuasion_multiturn") : null;
  if (full && existsSync(full)) {
    const all = [...(await env.loadTasks!(path.join(full, "test.parquet"))), ...(await env.loadTasks!(path.join(full, "train.parquet")))];
    assert.equal(all.length, 420);
    assert.equal(new Set(all.map((t) => t.id)).size, 420);
  }
  // Travel's rows name scenarios only: the refusal says which JSON file holds them.
  await assert.rejects(
    createUserRlEnvironment("travel", FEEDBACK_ONLY).loadTasks!(path.join(SAMPLES, "travel22_multiturn_onechoice_test.parquet")),
    (e: unknown) =>
      e instanceof DatasetError &&
      /101 here, e\.g\. apartment:2-86\|rental_car:2-60\) name scenarios .* import TravelGym's travelgym_data_22\.json instead/.test(
        e.message,
      ),
  );
  // Another gym's rows, or a gym whose rows lack its records, are refused by name.
  await assert.rejects(
    createUserRlEnvironment("turtle", FEEDBACK_ONLY).loadTasks!(path.join(SAMPLES, "persuasion_multiturn_test.parquet")),
    (e: unknown) => e instanceof DatasetError && /parquet files are read for persuade only/.test(e.message),
  );
});
