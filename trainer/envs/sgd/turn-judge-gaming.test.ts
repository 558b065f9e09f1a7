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

/** What a scripted policy sees before its turn: every observation so far (the user's and the services' messages). */
type Script = string[] | ((seen: string[], turn: number) => string);

async function play(ep: Episode, script: Script): Promise<number | null> {
  const seen = (await ep.reset()).filter((m) => m.source !== "system").map((m) => m.content);
  const turns = typeof script === "function" ? 4 : script.length;
  let end: EpisodeEndReason = "max_turns";
  for (let turn = 0; turn < turns; turn++) {
    const message = typeof script === "function" ? script(seen, turn) : script[turn];
    const r = await ep.step(message, turn);
    seen.push(...r.observations.map((m) => m.content));
    if (r.done) {
      end = r.endReason ?? "max_turns";
      break;
    }
  }
  return (await ep.evaluate(end)).reward;
}

const call = (name: string, args: Record<string, string>) =>
  `<tool_call>{"name": "${name}", "arguments": ${JSON.stringify(args)}}</tool_call>`;

/** Short pieces of what the user said: substrings a "grounded somewhere in the dialogue" check would accept. */
function substringsOf(text: string, length: number): string[] {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  const pieces = words.filter((w) => w.length > length).map((w) => w.slice(1, 1 + length));
  return pieces.length ? pieces : ["e"];
}

/** Four turns of each kind of junk a policy could learn to emit for a task. */
function junkFor(task: SgdTask): Record<string, Script> {
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
    // Values cut out of the user's own words: in the dialogue, but not what it grounds for the slot.
    "one-letter substrings of the user's words": (seen) =>
      call(goal.intent, Object.fromEntries(intent.requiredSlots.map((s, i) => [s, substringsOf(seen[0], 1)[i % 3] ?? "e"]))),
    "three-letter substrings of the user's words": (seen, turn) => {
      const pieces = substringsOf(seen.join(" "), 3);
      return call(goal.intent, Object.fromEntries(intent.requiredSlots.map((s, i) => [s, pieces[(i + turn) % pieces.length]])));
    },
    // The same question naming a slot, again and again, whatever the user answers.
    "a repeated slot-name question": four(`What ${intent.requiredSlots[0].replace(/_/g, " ")} would you like?`),
    "a repeated question on every slot name": four(
      `Could you tell me the ${intent.requiredSlots.map((s) => s.replace(/_/g, " ")).join(" and ")}?`,
    ),
    // A call with junk values, then the service's answer (or the user's words) echoed back to the user.
    "call then echo the result": (seen, turn) =>
      turn === 0 ? call(goal.intent, { [intent.requiredSlots[0]]: substringsOf(seen[0], 1)[0] }) : `Here it is: ${seen[seen.length - 1]}`,
    "call then echo the user": (seen, turn) =>
      turn % 2 === 0
        ? call(goal.intent, { [intent.requiredSlots[0]]: substringsOf(seen[0], 2)[0] })
        : `You said: ${[...seen].reverse().find((m) => !m.trim().startsWith("{") && !m.trim().startsWith("[")) ?? seen[0]}`,
  };
}

test("junk arguments and irrelevant text score below every task's gold replay", { timeout: 600_000 }, async () => {
  const env = createSgdEnvironment();
  const tasks = await env.loadTasks!(sgd.dir);
  const demos = await env.demonstrations!(tasks);
  const ctx = () => ({ seed: 7, llm: offlineChat(), maxTurns: 40 });
  const gamed: Record<string, number> = {};
  const sums: Record<string, number> = { gold: 0 };
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
    sums.gold += gold;
    for (const [kind, messages] of Object.entries(junkFor(task))) {
      const junk = await play(env.createEpisode(task, ctx()), messages);
      if (junk === null || junk >= gold) gamed[kind] = (gamed[kind] ?? 0) + 1;
      sums[kind] = (sums[kind] ?? 0) + (junk ?? 0);
    }
  }
  // The means, for the docs' table (the assertion is per task).
  console.log(
    Object.entries(sums)
      .map(([k, v]) => `${k}: ${(v / compared).toFixed(3)}`)
      .join("\n"),
  );
  assert.ok(compared >= (sgd.full ? 128 : 40), `${compared} tasks with a gold replay`);
  assert.deepEqual(gamed, {}, `tasks (of ${compared}) where junk scores at or above the gold replay, by kind of junk`);
});
