/**
 * The offline turn rater cannot be gamed: over every task of the SGD sample (the 128 dialogues of dialogues_001.json
 * when the full set is in ../shared, else the 40 vendored), calls with junk arguments and irrelevant text score below
 * the task's gold replay (the real dialogue's SYSTEM side played through the episode).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSgdEnvironment } from "./index";
import type { SgdTask } from "./sgd-task";
import type { Episode } from "../types";
import type { EpisodeEndReason } from "../../../lib/conversation";
import { offlineChat } from "./test-helpers";
import { sharedData } from "../../../tests/fixtures/shared-data";

const sgd = sharedData("data/sgd/train");

async function play(ep: Episode, messages: string[]): Promise<number | null> {
  await ep.reset();
  let end: EpisodeEndReason = "max_turns";
  for (let turn = 0; turn < messages.length; turn++) {
    const r = await ep.step(messages[turn], turn);
    if (r.done) {
      end = r.endReason ?? "max_turns";
      break;
    }
  }
  return (await ep.evaluate(end)).reward;
}

const call = (name: string, args: Record<string, string>) =>
  `<tool_call>{"name": "${name}", "arguments": ${JSON.stringify(args)}}</tool_call>`;

/** Four turns of each kind of junk a policy could learn to emit for a task. */
function junkFor(task: SgdTask): Record<string, string[]> {
  const goal = task.data.goal[0];
  const intent = task.data.services.find((s) => s.name === goal.service)!.intents.find((i) => i.name === goal.intent)!;
  const other = task.data.services.flatMap((s) => s.intents).find((i) => !task.data.goal.some((g) => g.intent === i.name));
  const four = (m: string) => [m, m, m, m];
  return {
    "one junk value": four(call(goal.intent, { [intent.requiredSlots[0]]: "zzz" })),
    "every required slot junk": four(call(goal.intent, Object.fromEntries(intent.requiredSlots.map((s) => [s, "zzz"])))),
    "an unknown parameter": four(call(goal.intent, { zzz: "zzz" })),
    ...(other && {
      "a service the goal does not need": four(call(other.name, Object.fromEntries(other.requiredSlots.map((s) => [s, "zzz"])))),
    }),
    "word salad": four("The purple elephant quietly considers seven mountains beyond yesterday's orange umbrella"),
    "chit-chat": four("I love sunny afternoons at the beach with my dog and a good book."),
    "an off-topic question": four("Have you seen the latest episode of that show everyone talks about?"),
  };
}

test("junk arguments and irrelevant text score below every task's gold replay", { timeout: 600_000 }, async () => {
  const env = createSgdEnvironment();
  const tasks = await env.loadTasks!(sgd.dir);
  const demos = await env.demonstrations!(tasks);
  const ctx = () => ({ seed: 7, llm: offlineChat(), maxTurns: 40 });
  const gamed: Record<string, number> = {};
  let compared = 0;
  for (const task of tasks) {
    const demo = demos.find((d) => d.taskId === task.id);
    if (!demo) continue;
    const gold = await play(
      env.createEpisode(task, ctx()),
      demo.messages.filter((m) => m.role === "assistant").map((m) => m.content),
    );
    assert.ok(gold !== null && gold > 0, `${task.id}: the gold replay is scored`);
    compared++;
    for (const [kind, messages] of Object.entries(junkFor(task))) {
      const junk = await play(env.createEpisode(task, ctx()), messages);
      if (junk === null || junk >= gold) gamed[kind] = (gamed[kind] ?? 0) + 1;
    }
  }
  assert.ok(compared >= (sgd.full ? 128 : 40), `${compared} tasks with a gold replay`);
  assert.deepEqual(gamed, {}, `tasks (of ${compared}) where junk scores at or above the gold replay, by kind of junk`);
});
