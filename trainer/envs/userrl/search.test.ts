import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import type { LlmChat, LlmChatRequest } from "../types";
import { createUserRlEnvironment } from "./index";
import { playGym } from "./testing/play-gym";
import { MAX_SEARCHES, normalizeAnswer } from "./search";

test("SearchGym's answer check: lower case, letters and digits only", () => {
  assert.equal(normalizeAnswer("James Madison"), normalizeAnswer("james madison"));
  assert.equal(normalizeAnswer("8,849"), "8849");
  assert.equal(normalizeAnswer("Titan IIIE."), "titaniiie");
  assert.notEqual(normalizeAnswer("Madison"), normalizeAnswer("james madison"));
});

test("Search offline: a search finds the task's documents, the right answer earns 1 and ends it; a wrong one earns 0 and it goes on", async () => {
  const env = createUserRlEnvironment("search");
  assert.ok(env.builtinTasks().length >= 8);
  for (const task of env.builtinTasks()) {
    const doc = task.data.documents[0];
    const r = await playGym(env, task, [
      `[search] ${doc.keywords[0]}`,
      "[answer] something else",
      `[answer] ${task.data.answer.toUpperCase()}`,
    ]);
    assert.match(
      r.steps[0].observations[0].content,
      new RegExp(`^Search results for '${doc.keywords[0]}':\\n1\\. ${doc.title.replace(/[()]/g, "\\$&")}\\n- Snippet: `),
      task.id,
    );
    assert.equal(r.steps[0].observations[0].source, "tool_simulator");
    assert.deepEqual(r.turnRewards, [0, 0, 1], task.id);
    assert.equal(r.end, "agent_finished");
    assert.equal(r.evaluation.reward, 1);
    assert.deepEqual(r.evaluation.components, { correct: 1, searches: 1, answers: 2 });
  }
  const task = env.builtinTasks()[0];
  const none = await playGym(env, task, ["[search] zebra migration", "[finish]"]);
  assert.match(none.steps[0].observations[0].content, /No results found\./);
  assert.equal(none.evaluation.reward, 0);
  const many = await playGym(
    env,
    task,
    Array.from({ length: MAX_SEARCHES + 1 }, () => "[search] eiffel"),
  );
  assert.match(many.steps[MAX_SEARCHES].observations[0].content, /used all 5 searches/);
  assert.equal(many.steps[MAX_SEARCHES].observations[0].source, "environment");
});

test("Search with a judge: an equivalent answer is judged right; an unreadable judgement is asked again, then the episode is unscored", async () => {
  const env = createUserRlEnvironment("search");
  const task = env.builtinTasks().find((t) => t.id === "search-penicillin")!;
  const requests: LlmChatRequest[] = [];
  const replies = ['{"reasoning": "Fleming is the discoverer", "judgment": "Yes", "feedback": "Right."}'];
  const judge: LlmChat = {
    chat: async (req) => (requests.push(req), { text: replies.shift() ?? "no idea", callId: `j${requests.length}` }),
  };
  const yes = await playGym(env, task, ["[answer] Fleming"], judge);
  assert.deepEqual(yes.turnRewards, [1]);
  assert.equal(yes.evaluation.reward, 1);
  assert.match(requests[0].messages[1].content, /Their answer: Fleming\nCorrect answer: Alexander Fleming/);

  const broken = await playGym(env, task, ["[answer] Pasteur"], judge);
  assert.equal(requests.length, 3, "asked twice");
  assert.ok(requests[1].validate!("no idea"), "the unreadable reply is recorded as a failed call");
  assert.equal(broken.end, "error");
  assert.deepEqual(broken.steps[0].observations[0].llmCallIds, ["j2", "j3"]);
  assert.equal(broken.evaluation.reward, null);
});

test("SearchGym's questions.json (Bamboogle) imports; offline its questions have no documents to find", async () => {
  const env = createUserRlEnvironment("search");
  const tasks = await env.loadTasks!(path.resolve(import.meta.dirname, "../../../tests/fixtures/userrl/questions.json"));
  assert.equal(tasks.length, 8);
  assert.equal(tasks[0].id, "Bamboogle-1");
  assert.equal(tasks[0].data.answer, "james madison");
  const r = await playGym(env, tasks[0], ["[search] Citibank founded", "[answer] James Madison"]);
  assert.match(r.steps[0].observations[0].content, /No results found/);
  assert.deepEqual(r.turnRewards, [0, 1], "the normalised answer matches");
});
