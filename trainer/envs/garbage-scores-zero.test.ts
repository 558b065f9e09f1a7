/**
 * A judge must not pay for garbage: an untrained byte-level policy's replies (random bytes) score 0 in every
 * environment, or every sample of a group scores alike and GRPO has nothing to learn from (the sgd judge used to
 * give random bytes 0.3). Played through each environment's real episode with its offline simulators and judges.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ENVIRONMENT_NAMES } from "../../lib/environments";
import { runOfflineCall } from "../llm/offline-provider";
import { getEnvironment } from "./registry";
import type { LlmChat } from "./types";
import { Rng } from "../policy/rng";

const offline: LlmChat = {
  async chat(req) {
    const { record, text, error } = await runOfflineCall(req);
    if (error || text === null) throw error ?? new Error("no offline reply");
    return { text, callId: record.id };
  },
};

function randomBytes(rng: Rng, n: number): string {
  return Buffer.from(Array.from({ length: n }, () => rng.int(256))).toString("latin1");
}

for (const name of ENVIRONMENT_NAMES) {
  test(`${name}: replies of random bytes score 0`, async () => {
    const env = getEnvironment(name, {});
    const rng = new Rng(7);
    for (const task of env.builtinTasks().slice(0, 4)) {
      const episode = env.createEpisode(task, { seed: 1, llm: offline, maxTurns: 6 });
      await episode.reset();
      let done = false;
      for (let turn = 0; turn < 6 && !done; turn++) done = (await episode.step(randomBytes(rng, 40 + rng.int(60)), turn)).done;
      const evaluation = await episode.evaluate(done ? "agent_finished" : "max_turns");
      assert.equal(evaluation.reward, 0, `${task.id}: ${evaluation.reasoning}`);
    }
  });
}
