/**
 * An agent that does everything right but leaves out one write the task requires has not solved it: τ² compares
 * the whole final database with the gold one, so the episode scores 0. Checked for every write action of every
 * task that changes the database — decided here independently of the environment's comparison, by the full
 * database's canonical JSON after the gold replay with and without that write. A comparison that looked only at
 * the records the agent touched (or at the final state's ids) would pass these episodes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { EpisodeContext, LlmChat, Task } from "../types";
import { createTau2RetailEnvironment, type Tau2TaskData } from "./index";
import { retailDomain } from "./retail-domain";
import type { WorkingDb } from "./retail-db";
import { canonicalJson } from "../../../lib/canonical-json";
import { initialCopy } from "./tau2-episode";
import { parseJsonKeepingKeyOrder } from "../../../lib/ordered-json";
import { sharedData } from "../../../tests/fixtures/shared-data";

const offline: LlmChat = {
  async chat(req) {
    if (!req.offline) throw new Error("no offline reply");
    return { text: await req.offline(), callId: "offline" };
  },
};
const ctx = (): EpisodeContext => ({ seed: 1, llm: offline, maxTurns: 60 });

/** Plays the gold actions except the one at `skip` (as structured calls), then says what the task requires. */
async function playWithout(env: ReturnType<typeof createTau2RetailEnvironment>, task: Task<Tau2TaskData>, skip: number) {
  const episode = env.createEpisode(task, ctx());
  await episode.reset();
  let turn = 0;
  for (const [i, action] of task.data.actions.entries()) {
    if (i === skip) continue;
    const r = await episode.step("", turn++, [{ name: action.name, arguments: action.arguments }]);
    if (r.done) break;
  }
  await episode.step([...task.data.communicateInfo, ...task.data.nlAssertions].join(" ") || "Done.", turn++);
  return episode.evaluate("user_done");
}

/** Users and orders in full after replaying the gold actions but `skip`, as canonical JSON. */
function wholeDatabaseWithout(initialDb: unknown, task: Tau2TaskData, skip: number): string {
  const w = initialCopy(retailDomain, initialDb, task) as WorkingDb;
  for (const [i, a] of task.actions.entries()) if (i !== skip) retailDomain.runTool(w, a.name, a.arguments);
  return canonicalJson({ users: w.db.users, orders: w.db.orders });
}

function readDb(file: string): unknown {
  const raw = parseJsonKeepingKeyOrder(readFileSync(file, "utf8")) as { db?: unknown };
  return retailDomain.validateDb(raw.db ?? raw, file);
}

test("leaving out any one required write scores 0 on the database check and on the reward", async () => {
  const env = createTau2RetailEnvironment();
  const dir = sharedData("data/tau2/retail").dir;
  const sets = [
    { tasks: env.builtinTasks(), db: readDb(new URL("./builtin-domain.json", import.meta.url).pathname) },
    { tasks: await env.loadTasks!(dir), db: readDb(path.join(dir, "db.json")) },
  ];
  let checked = 0;
  for (const { tasks, db } of sets)
    for (const task of tasks) {
      const gold = wholeDatabaseWithout(db, task.data, -1);
      for (const [i, action] of task.data.actions.entries()) {
        if (!retailDomain.isWriteTool(action.name)) continue;
        // A write that leaves the database as it was (it repeats a value) is not required by τ²'s DB check.
        if (wholeDatabaseWithout(db, task.data, i) === gold) continue;
        const ev = await playWithout(env, task, i);
        assert.equal(ev.components.db, 0, `task ${task.id} without ${action.name} (#${i}): ${ev.reasoning}`);
        assert.equal(ev.reward, 0, `task ${task.id} without ${action.name} (#${i})`);
        checked++;
      }
    }
  assert.ok(checked >= 10, `only ${checked} write actions were left out`);
});

test("the same episodes with every write played score 1 (the omission, not the replay, is what fails)", async () => {
  const env = createTau2RetailEnvironment();
  for (const task of env.builtinTasks()) {
    const ev = await playWithout(env, task, -1);
    assert.equal(ev.components.db, 1, `task ${task.id}: ${ev.reasoning}`);
    // Offline, a task whose basis counts natural-language assertions cannot be scored (no judge), never passed.
    const expected = task.data.rewardBasis.includes("NL_ASSERTION") && task.data.nlAssertions.length ? null : 1;
    assert.equal(ev.reward, expected, `task ${task.id}: ${ev.reasoning}`);
  }
});
