/**
 * A solved episode's final state agrees with its expected state wherever the two declare the same keys: the
 * inspector's "final vs expected state" (lib/state-diff compareStates) shows it green. It showed a solved
 * guess-number episode "1 missing, 2 unexpected" (expected {secret} against final {turns, solved}) and simulated
 * episodes' bookkeeping as unexpected. Each environment's gold play (its SFT demonstrations) is replayed through
 * its real episode with the offline simulators and judges.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ENVIRONMENT_NAMES } from "../../lib/environments";
import { compareStates } from "../../lib/state-diff";
import { getEnvironment } from "./registry";
import { offlineChat as offline } from "./scripted-demonstration";

for (const name of ENVIRONMENT_NAMES) {
  test(`${name}: a solved episode's final state shows as agreeing with the expected one`, async (t) => {
    const env = getEnvironment(name, {});
    const tasks = env.builtinTasks().slice(0, 6);
    const demos = env.demonstrations ? await env.demonstrations(tasks) : [];
    if (demos.length === 0) return t.skip(`${name} has no gold play for its built-in tasks`);
    let solved = 0;
    for (const demo of demos) {
      const task = tasks.find((x) => x.id === demo.taskId);
      if (!task) continue;
      const policy = demo.messages.filter((m) => m.role === "assistant").map((m) => m.content);
      const episode = env.createEpisode(task, { seed: 0, llm: offline, maxTurns: policy.length });
      await episode.reset();
      let done = false;
      for (let turn = 0; turn < policy.length && !done; turn++) done = (await episode.step(policy[turn], turn)).done;
      const evaluation = await episode.evaluate(done ? "agent_finished" : "max_turns");
      if ((evaluation.reward ?? 0) < 1) continue;
      solved++;
      const shown = compareStates(evaluation.expectedState, evaluation.finalState);
      assert.notEqual(shown.kind, "unrelated", `${task.id}: final and expected states share no key`);
      if (shown.kind === "compared") {
        const wrong = shown.entries.filter((e) => e.kind !== "equal");
        assert.deepEqual(wrong, [], `${task.id}: solved (reward ${evaluation.reward}) but shown as differing`);
      }
    }
    assert.ok(solved > 0, `${name}: no gold play solved its task`);
  });
}
