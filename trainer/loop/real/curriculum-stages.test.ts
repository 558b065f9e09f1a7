/**
 * Curriculum stages switch environment options as EnvTuning's stages switch reward: on BFCL, stage 1 trains with
 * the format reward and stage 2 with progress, through the production loop; each step records its stage.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { selectBackend } from "../../backend/select";
import { trainLocally } from "./local-run";

test(
  "a curriculum stage's environment options apply to its steps: BFCL reward mode format, then progress",
  { timeout: 300_000 },
  async () => {
    await selectBackend({ ROLLOUT_LAB_BACKEND: "cpu" });
    const run = await trainLocally({
      name: "bfcl curriculum",
      environment: "bfcl",
      seed: 3,
      grpo: { steps: 2, groupsPerStep: 1, groupSize: 2, minibatchSize: 2 },
      rollout: { maxTurns: 2, maxNewTokens: 8 },
      evaluation: { testFreq: 0 },
      curriculum: [
        { name: "stage1_format", steps: 1, filter: { tags: ["format"] }, environmentOptions: { rewardMode: "format" } },
        { name: "stage3_all", steps: 1, environmentOptions: { rewardMode: "progress" } },
      ],
    });
    assert.equal(run.outcome.kind, "completed");
    const modeOf = (step: number) => {
      const reasonings = run.sink.steps.get(step)!.groups.flatMap((g) => g.trajectories.map((t) => t.reasoning ?? ""));
      return [...new Set(reasonings.map((r) => /reward mode (\w+)/.exec(r)?.[1]))];
    };
    assert.deepEqual(modeOf(0), ["format"]);
    assert.deepEqual(modeOf(1), ["progress"]);
    assert.equal(run.sink.steps.get(0)!.metrics["curriculum/stage"], 1);
    assert.equal(run.sink.steps.get(1)!.metrics["curriculum/stage"], 2);
    const stageEvents = [...run.sink.steps.values()]
      .flatMap((r) => r.events ?? [])
      .filter((e) => /^Curriculum stage/.test(e.message))
      .map((e) => e.message);
    assert.equal(stageEvents.length, 2, stageEvents.join("\n"));
    assert.match(stageEvents[0], /stage 1 of 2 "stage1_format" from step 0: \d+ tasks, environment options \{"rewardMode":"format"\}/);
  },
);
