/**
 * The policy view's record, through the production loop and pieces (trainLocally): every trajectory carries the
 * token sequence the update trained on, its sampled tokens say exactly what the conversation shows the policy
 * saying, and the update's per-token values are those it trained with.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { findEnvironment } from "../../../lib/environments";
import { selectBackend } from "../../backend/select";
import { trainLocally } from "./local-run";

test(
  "each trajectory records the policy's tokens: its replies token by token, log-probs, advantages, ratios and KL",
  { timeout: 300_000 },
  async () => {
    await selectBackend({ ROLLOUT_LAB_BACKEND: "cpu" });
    const preset = findEnvironment("guess-number")!.preset;
    const run = await trainLocally({
      ...preset,
      environment: "guess-number",
      seed: 5,
      grpo: { ...preset.grpo, steps: 2, groupsPerStep: 2, minibatchSize: 8, sftWarmupSteps: 10, klCoef: 0.05, ppoEpochs: 2 },
    });
    assert.equal(run.outcome.kind, "completed");
    const trajectories = [...run.sink.steps.values()].flatMap((s) => s.groups.flatMap((g) => g.trajectories));
    assert.ok(trajectories.length >= 16);
    let trainedWith = 0;
    for (const t of trajectories) {
      const p = t.policyTokens!;
      assert.ok(p, "every trajectory of a token-sampling policy has its tokens");
      for (const a of [p.pieces, p.sampled, p.turns, p.logprobs!]) assert.equal(a.length, p.ids.length);
      assert.ok(p.pieces.join("").startsWith("<|im_start|>"), "the sequence opens with the rendered chat template");
      // The sampled tokens of turn k, minus the end-of-turn marker the policy emitted, are its k-th message.
      const replies = t.conversation.filter((m) => m.source === "policy");
      replies.forEach((m, k) => {
        const said = p.pieces.filter((_, i) => p.sampled[i] > 0 && p.turns[i] === k).join("");
        assert.equal(said.replace(/<\|im_end\|>$/, ""), m.content, `turn ${k}`);
      });
      assert.equal(
        p.sampled.reduce((a, b) => a + b, 0),
        t.responseTokens,
        "one sampled token per response token",
      );
      assert.ok(
        p.logprobs!.every((lp, i) => (p.sampled[i] > 0 ? lp <= 0 : lp === 0)),
        "log-probs on sampled tokens only",
      );
      if (!p.update) continue;
      trainedWith++;
      replies.forEach((m, k) => {
        const adv = p.update!.advantages.filter((_, i) => p.sampled[i] > 0 && p.turns[i] === k);
        assert.ok(
          adv.every((a) => Math.abs(a - (m.advantage ?? 0)) < 1e-4),
          `the tokens of turn ${k} carry the turn's advantage ${m.advantage}`,
        );
      });
      const ratio = p.update.ratio!;
      assert.ok(
        ratio.every((r, i) => (p.sampled[i] > 0 ? r !== null && r > 0 : r === null)),
        "ratios on sampled tokens only",
      );
      assert.ok(
        p.update.kl!.some((k) => k !== null),
        "KL to the reference per token (klCoef > 0)",
      );
    }
    assert.ok(trainedWith > 0, "some trajectories were trained on and carry the update's values");
  },
);
