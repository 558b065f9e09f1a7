import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import type { LlmChat, LlmChatRequest } from "../types";
import { DatasetError } from "../types";
import { createUserRlEnvironment } from "./index";
import { playGym } from "./testing/play-gym";
import { travelRules } from "./travel";
import { TravelConfigSchema } from "../../../lib/userrl-options";

/** These tests read the gym's own feedback; UserRL's "\nReward: …" suffix is tested in userrl-parity.test.ts. */
const FEEDBACK_ONLY = { rewardInObservation: false };

const FIXTURE = path.join(import.meta.dirname, "../../../tests/fixtures/userrl-shaped/travelgym_data_22.json");
const env = createUserRlEnvironment("travel", FEEDBACK_ONLY);
const sfTask = env.builtinTasks().find((t) => t.id === "travel-sf-business")!;

test("Travel offline: the gold play (search, ask each preference, recommend the best) scores 1 with UserRL's training turn rewards", async () => {
  const tasks = env.builtinTasks();
  assert.ok(tasks.length >= 8);
  for (const task of tasks) {
    const script = travelRules(TravelConfigSchema.parse({})).solution(task.data);
    const played = await playGym(env, task, script);
    const expected = task.data.aspects.flatMap((a) => [0, ...a.preferences.map(() => 0.8), 1]);
    assert.deepEqual(played.turnRewards, expected, task.id);
    assert.equal(played.end, "env_terminal", task.id);
    assert.equal(played.evaluation.reward, 1, task.id);
    const prefs = task.data.aspects.reduce((n, a) => n + a.preferences.length, 0);
    assert.equal(played.evaluation.components.preferences_asked, prefs, task.id);
    assert.equal(played.evaluation.components.best_choices, task.data.aspects.length, task.id);
    assert.equal(played.evaluation.components.searches_aligned, task.data.aspects.length, task.id);
    // Search results list every option of the aspect, with the fields explained; the user's replies hint.
    const listing = played.steps[0].observations[0];
    assert.equal(listing.source, "tool");
    for (const o of task.data.aspects[0].options) assert.ok(listing.content.includes(`"id":"${o.id}"`), `${task.id} lists ${o.id}`);
    assert.equal(played.steps[1].observations[0].content, task.data.aspects[0].preferences[0].implicitElicitation);
    assert.equal(played.steps[1].observations[0].source, "user_simulator");
  }
});

test("Travel recommendations as TravelGym scores them: best 1, meets-preferences 0.8, wrong 0; several ids summed; one per aspect; the episode runs on until every best option is chosen", async () => {
  const [flight, hotel] = sfTask.data.aspects;
  const correctFlight = flight.correctIds.find((id) => id !== flight.bestId)!;
  const played = await playGym(env, sfTask, [
    `[answer] ${correctFlight}`,
    `[answer] ${flight.bestId}`, // a second flight: refused, nothing earned
    "[answer] hotel one", // not an ID
    `[answer] R1, ${hotel.bestId}`, // several at once: each counts (R1 wrong, the hotel's best 1)
    `[answer] A1, H1`, // A1 is recorded (wrong), then H1 is refused: the turn earns 0
    "[finish]",
  ]);
  assert.deepEqual(played.turnRewards, [0.8, 0, 0, 1, 0, 0]);
  const texts = played.steps.map((s) => s.observations[0].content);
  assert.match(texts[1], /already recommended an option starting with 'F'/);
  assert.match(texts[2], /not an option ID/);
  assert.match(texts[3], /include the best option, and a wrong one/);
  assert.match(texts[4], /already recommended an option starting with 'H'/);
  // Every aspect has a recommendation, but the flight's best is still open: TravelGym's step_async plays on.
  assert.equal(played.end, "agent_finished");
  assert.equal(played.evaluation.reward, 0.9); // (0.8 + 1) / 2
  assert.equal(played.evaluation.components.correct_choices, 1);
  assert.equal(played.evaluation.components.best_choices, 1);
  assert.equal(played.evaluation.components.wrong_choices, 2);
  const { chosen } = played.evaluation.finalState as { chosen: Record<string, string> };
  assert.deepEqual([chosen.flight, chosen.hotel], [correctFlight, hotel.bestId]);
  // Two best options in one answer earn 2 and end the episode.
  const both = await playGym(env, sfTask, [`[answer] ${flight.bestId}, ${hotel.bestId}`]);
  assert.deepEqual(both.turnRewards, [2]);
  assert.equal(both.end, "env_terminal");
});

test("Travel searches: aligned once per aspect, repeats and misses earn nothing, every 5th search fails on purpose", async () => {
  const [flight] = sfTask.data.aspects;
  const right = `[search] flight ${JSON.stringify(flight.arguments)}`;
  const played = await playGym(createUserRlEnvironment("travel", { ...FEEDBACK_ONLY, searchCorrectReward: 0.2 }), sfTask, [
    right,
    right,
    "[search] flight from Boston",
    "[search] hotel and flight, New York to San Francisco",
    right,
    "[finish]",
  ]);
  assert.deepEqual(played.turnRewards, [0.2, 0, 0, 0, 0, 0]);
  const texts = played.steps.map((s) => s.observations[0].content);
  assert.match(texts[0], /All options for <flight>/);
  assert.match(texts[1], /already have the results for <flight>/);
  assert.match(texts[2], /does not match/);
  assert.match(texts[3], /does not match/); // two aspects in one request
  assert.match(texts[4], /search backend is having trouble/); // the 5th search
  assert.equal(played.evaluation.components.searches_aligned, 1);
  assert.equal(played.end, "agent_finished");
  assert.equal(played.evaluation.reward, 0);
});

test("Travel questions: vague and already-answered questions get stock replies; after three off-target questions the next gets an apology, or with volunteerPreferences a volunteered preference", async () => {
  const [flight] = sfTask.data.aspects;
  const layover = flight.preferences[0];
  const script = [
    `[action] Tell me about the ${layover.keywords[0]} you want on the flight.`, // type 2
    `[action] Again: what about the ${layover.keywords[0]}?`, // type 3: already revealed
    "[action] Do you have any preferences for the hotel?", // type 4: vague
    "[action] Lovely weather in New York today.", // third off-target in a row
    "[action] Did you sleep well?", // the fourth: the user speaks up
  ];
  const played = await playGym(env, sfTask, script);
  assert.deepEqual(played.turnRewards, [0.8, 0, 0, 0, 0]);
  const [reveal, revealed, vague, , fourth] = played.steps.map((s) => s.observations[0]);
  assert.equal(reveal.content, layover.implicitElicitation);
  assert.match(revealed.content, /no particular preference there/);
  assert.equal(revealed.source, "environment");
  assert.match(vague.content, /too general/);
  // UserRL's training: TravelGym's volunteering fails and its fallback apologises; nothing is revealed.
  assert.match(fourth.content, /can't really answer that right now/);
  assert.equal(played.evaluation.components.preferences_volunteered, 0);

  const volunteering = createUserRlEnvironment("travel", { ...FEEDBACK_ONLY, volunteerPreferences: true });
  const designed = await playGym(volunteering, sfTask, script);
  const volunteered = designed.steps[4].observations[0];
  const others = sfTask.data.aspects.flatMap((a) => a.preferences).filter((p) => p !== layover);
  assert.ok(
    others.some((p) => p.implicitElicitation === volunteered.content),
    volunteered.content,
  );
  assert.equal(designed.evaluation.components.preferences_asked, 1);
  assert.equal(designed.evaluation.components.preferences_volunteered, 1);
});

test("Travel with LLM judges and user: the judge's type and preference decide the reward; unreadable twice leaves the episode unscored", async () => {
  const requests: LlmChatRequest[] = [];
  const replies: Record<string, string[]> = {
    judge: ['```json\n{"type": "2", "preference_id": "P3"}\n```', '{"type": "2", "preference_id": "P99"}', "no idea"],
    user_simulator: ['{"thought": "hint", "response": "I never miss my morning run."}'],
  };
  const llm: LlmChat = {
    async chat(req) {
      requests.push(req);
      const text = replies[req.role].shift() ?? "";
      const problem = req.validate?.(text) ?? null;
      return { text, callId: `${req.role}-${requests.length}${problem ? "-failed" : ""}` };
    },
  };
  const played = await playGym(env, sfTask, ["[action] Do you need a gym at the hotel?", "[action] And which seat do you like?"], llm);
  assert.equal(played.turnRewards[0], 0.8);
  assert.equal(played.steps[0].observations[0].content, "I never miss my morning run.");
  // The judge saw the preferences by ID; the user was told which one to hint at.
  assert.match(requests[0].messages[1].content, /Preference P3 \(hotel\): The hotel must have a gym\./);
  assert.match(requests[1].messages[1].content, /I try never to skip my morning workout/);
  // Second question: a preference ID not in the list, then prose — both recorded as failed, then unscored.
  assert.equal(played.end, "error");
  assert.deepEqual(played.steps[1].observations[0].llmCallIds, ["judge-3-failed", "judge-4-failed"]);
  assert.equal(played.evaluation.reward, null);
  assert.match(played.evaluation.reasoning, /question judge's reply could not be read twice/);
});

test("TravelGym's data file imports as UserRL's training loads it: every option kept (no cut in single mode), answer key removed, the same order every load", async () => {
  const tasks = await env.loadTasks!(FIXTURE);
  assert.deepEqual(
    tasks.map((t) => t.id),
    ["flight:2-14|hotel:2-31", "rental_car:2-6|restaurant:2-41"],
  );
  const [sf] = tasks;
  assert.deepEqual(
    sf.data.aspects.map((a) => a.name),
    ["flight", "hotel"],
  );
  const flight = sf.data.aspects[0];
  assert.equal(flight.options.length, 2 + 12 + 6);
  assert.ok(flight.options.every((o) => !("type" in o) && !("reason" in o)));
  assert.ok(["F1", "F2"].every((id) => flight.options.some((o) => o.id === id)));
  assert.equal(flight.bestId, "F1");
  assert.deepEqual(flight.preferences[0].keywords, ["stops"]);
  assert.deepEqual(flight.preferences[1].keywords, ["flight", "wifi"]);
  const again = await env.loadTasks!(FIXTURE);
  assert.deepEqual(
    again[0].data.aspects[0].options.map((o) => o.id),
    flight.options.map((o) => o.id),
  );
  // It plays: the opening is UserRL's initial description plus the budget line, and the gold play scores 1.
  const script = sf.data.aspects.flatMap((a) => [`[search] ${a.name} ${JSON.stringify(a.arguments)}`, `[answer] ${a.bestId}`]);
  const played = await playGym(env, sf, script);
  assert.match(played.opening[1].content, /^I am planning a business trip .*\nMy budget is limited too/s);
  assert.equal(played.evaluation.reward, 1);
});

test("A malformed TravelGym record is named by file and scenario", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "travelgym-"));
  const file = path.join(dir, "travelgym_data_22.json");
  const good = { scenario: "s", dimensions: ["hotel"], wanted_num: "2", initial_description: "Need a hotel." };
  await writeFile(
    file,
    JSON.stringify({ "hotel:1-1": { ...good, hotel: { preferences: [["hotel", "gym"]], correct_ids: [], best_id: "H1" } } }),
  );
  await assert.rejects(
    env.loadTasks!(file),
    (e: Error) => e instanceof DatasetError && /hotel:1-1.*hotel\.preferences\.0 must be/.test(e.message),
  );
  await writeFile(file, JSON.stringify({ "boat:1-1": { ...good, dimensions: ["boat"] } }));
  await assert.rejects(env.loadTasks!(file), /boat:1-1.*unknown travel aspect "boat"/);
  const options = { correct: [{ id: "H1" }], wrong: [{ id: "F2" }] };
  const hotel = { preferences: [["hotel", "gym", "A gym.", "I run every morning."]], correct_ids: ["H1"], best_id: "H1", options };
  await writeFile(file, JSON.stringify({ "hotel:1-2": { ...good, hotel } }));
  await assert.rejects(env.loadTasks!(file), /hotel:1-2.*hotel option F2 must start with H/);
});
