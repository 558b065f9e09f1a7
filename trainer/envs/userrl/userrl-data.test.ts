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

const SAMPLES = path.resolve(import.meta.dirname, "../../../tests/fixtures/userrl");
const llm: LlmChat = { chat: async (req) => ({ text: req.offline ? await req.offline() : "", callId: "c" }) };

test("FunctionGym's functions.json: every rule gives its expected_result (Python arithmetic, 1 ** 10 ** 27 included)", async () => {
  const full = process.env.USERRL_DATA ? path.join(process.env.USERRL_DATA, "FunctionGym/functiongym/data/functions.json") : null;
  const file = full && existsSync(full) ? full : path.join(SAMPLES, "functions.json");
  const raw = JSON.parse(await readFile(file, "utf8")) as { id: string; expected_result: number }[];
  const tasks = await createUserRlEnvironment("function").loadTasks!(file);
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
    createUserRlEnvironment("function").loadTasks!(bad),
    (e: unknown) =>
      e instanceof DatasetError && /functions\.json \(record func-x\): the rule gives 3 .* expected_result is 4/.test(e.message),
  );
});

test("IntentionGym's file: details with their importance; a test file is the test split; asking earns the importance reward", async () => {
  const env = createUserRlEnvironment("intention");
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
  const env = createUserRlEnvironment("telepathy");
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

test("TurtleGym's file: surface and bottom as UserRL curated them; explaining the bottom solves the story", async () => {
  const env = createUserRlEnvironment("turtle");
  const tasks = await env.loadTasks!(path.join(SAMPLES, "all_stories_refined.json"));
  assert.equal(tasks.length, 6);
  const t = tasks[0];
  assert.match(t.data.surface, /daughter asked me where her sister went/);
  const ep = env.createEpisode(t, { seed: 1, llm, maxTurns: 5 });
  await ep.reset();
  const solved = await ep.step(`[answer] ${t.data.bottom}`, 0);
  assert.ok(Math.abs((solved.turnReward ?? 0) - 1) < 1e-9, `telling the whole bottom earns 1 (got ${solved.turnReward})`);
});
