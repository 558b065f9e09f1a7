import { test } from "node:test";
import assert from "node:assert/strict";
import { createSgdEnvironment } from "./index";
import { loadSgdCorpus } from "./sgd-format";
import { realUserTurns, scoreUserRealism, simulatedUserTurns, tagUserActs } from "./user-realism";
import { offlineChat } from "./test-helpers";
import { sharedData } from "../../../tests/fixtures/shared-data";

const SGD_TRAIN = sharedData("data/sgd/train").dir;

test("realism: real users vs real users scores high, the offline simulator beats a degenerate one", async () => {
  const corpus = await loadSgdCorpus(SGD_TRAIN);
  // 64 reference dialogues in the full file (128), half of the vendored sample (40).
  const split = Math.min(64, Math.floor(corpus.dialogues.length / 2));
  const real = realUserTurns(corpus.dialogues.slice(0, split));
  const heldOut = realUserTurns(corpus.dialogues.slice(split));
  const realVsReal = scoreUserRealism(heldOut, real);
  assert.ok(realVsReal.realism > 0.85, JSON.stringify(realVsReal));

  // Drive the offline simulator with a generic agent that asks about the usual slots, then calls the goal.
  const env = createSgdEnvironment();
  const all = await env.loadTasks!(SGD_TRAIN);
  // 30 tasks from the held-out half: 64–94 of the full set, the last 30 of the vendored sample.
  const from = Math.max(0, Math.min(split, all.length - 30));
  const tasks = all.slice(from, from + 30);
  const simulated = [];
  const degenerate = [];
  for (const task of tasks) {
    const ep = env.createEpisode(task, { seed: 11, llm: offlineChat(), maxTurns: 12 });
    const userTexts = [(await ep.reset())[1].content];
    const script = [
      "Sure, in which city?",
      "What kind of cuisine would you like?",
      ...task.data.goal.flatMap((g) => [
        `{"name": "${g.intent}", "arguments": ${JSON.stringify(g.parameters)}}`,
        "I found it for you. Shall I proceed?",
        "What time, and for how many people?",
      ]),
    ];
    for (const [turn, text] of script.entries()) {
      const r = await ep.step(text, turn);
      userTexts.push(...r.observations.filter((o) => o.source === "user_simulator").map((o) => o.content));
      if (r.done) break;
    }
    simulated.push(...simulatedUserTurns(userTexts, task.data.goal));
    degenerate.push(
      ...simulatedUserTurns(
        userTexts.map(() => "ok"),
        task.data.goal,
      ),
    );
  }
  const sim = scoreUserRealism(simulated, real);
  const bad = scoreUserRealism(degenerate, real);
  assert.ok(sim.realism > bad.realism + 0.2, `${JSON.stringify(sim)} vs ${JSON.stringify(bad)}`);
  console.log(`realism: real-vs-real ${JSON.stringify(realVsReal)}; offline sim ${JSON.stringify(sim)}; "ok"-bot ${JSON.stringify(bad)}`);
});

test("the act tagger recognises the common user acts", () => {
  const acts = (text: string) => [...tagUserActs({ text, knownValues: ["San Jose"] })].sort();
  assert.deepEqual(acts("I would like to find a place to eat in San Jose."), ["INFORM", "INFORM_INTENT"]);
  assert.deepEqual(acts("Yes, that's right."), ["AFFIRM"]);
  assert.deepEqual(acts("Thanks, that's all."), ["GOODBYE", "THANK_YOU"]);
  assert.deepEqual(acts("What is their address?"), ["REQUEST"]);
});
