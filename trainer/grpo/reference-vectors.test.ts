/**
 * Every case of the shared reference file, section by section. Each section handler walks ALL keys of its
 * section and fails on a key it does not understand, and an unknown section fails too, so a case added to the
 * file is either checked or reported, never silently skipped.
 */
import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { computeGroupAdvantages, type GroupAdvantageOptions } from "./advantages";
import {
  computeMultiTurnCredits,
  computeMultiTurnTokenAdvantages,
  computeTrajectoryScore,
  computeTurnCredits,
  turnIdsFromBoundaries,
} from "./multiturn";
import { computeOverlongPenalty, filterDynamicSamplingGroups } from "./dapo";
import { checkEdgeCases, checkPolicyLossSection } from "./testing/reference-policy-checks";
import {
  asMatrix,
  asNumbers,
  asObject,
  assertAllClose,
  assertClose,
  assertMatrixClose,
  forEachKey,
  loadReferenceVectors,
  type JsonObject,
} from "./testing/reference-vectors";

const ref = loadReferenceVectors();

before(async () => {
  await tf.setBackend("cpu");
});

const OUTCOME_VARIANTS: Record<string, GroupAdvantageOptions> = {
  "verl_norm_std_eps1e-6": { estimator: "grpo" },
  verl_no_std_drgrpo: { estimator: "drgrpo" },
  "trl_scale_group_eps1e-4": { estimator: "trl", scaleRewards: "group" },
  trl_scale_none: { estimator: "trl", scaleRewards: "none" },
  "art_population_std_eps1e-6": { estimator: "art" },
};

function checkOutcomeCase(c: JsonObject) {
  const name = c.name as string;
  const scores = asNumbers(c.scores);
  const index = c.index as (string | number)[];
  forEachKey(c, name, (key, value) => {
    if (key === "name" || key === "scores" || key === "index") return true;
    if (key === "group_stats_used") {
      const grpo = computeGroupAdvantages(scores, index, { estimator: "grpo" });
      const art = computeGroupAdvantages(scores, index, { estimator: "art" });
      for (const [groupId, statsJson] of Object.entries(asObject(value, key))) {
        const stats = asObject(statsJson, groupId);
        const g = grpo.groups.find((s) => String(s.groupId) === groupId);
        const a = art.groups.find((s) => String(s.groupId) === groupId);
        assert.ok(g && a, `${name}: group ${groupId} missing`);
        assertClose(g.mean ?? NaN, stats.mean as number, `${name} group ${groupId} mean`);
        assertClose(g.std ?? NaN, stats.std_unbiased as number, `${name} group ${groupId} std_unbiased`);
        if (a.scoredCount > 1) assertClose(a.std ?? NaN, stats.std_population as number, `${name} ${groupId} std_pop`);
      }
      return true;
    }
    const opts = OUTCOME_VARIANTS[key];
    if (!opts) return false;
    const result = computeGroupAdvantages(scores, index, opts);
    assertAllClose(result.advantages, asNumbers(value), `${name} ${key}`);
    return true;
  });
}

function checkMultiTurn(section: JsonObject) {
  const inputs = asObject(section.inputs, "inputs");
  const gamma = inputs.gamma as number;
  const epsilon = inputs.epsilon as number;
  const index = inputs.index as number[];
  const trajectories = (inputs.trajectories as JsonObject[]).map((t) => ({
    turnRewards: asNumbers(t.turn_rewards),
    turnIds: turnIdsFromBoundaries(asNumbers(t.turn_boundaries)),
    mask: asNumbers(t.response_mask),
  }));
  forEachKey(section, "userrl_grpo_multiturn", (key, value) => {
    if (key === "inputs") return true;
    if (key === "per_turn_credits") {
      for (const [method, expected] of Object.entries(asObject(value, key))) {
        const got = trajectories.map((t) => computeTurnCredits(t.turnRewards, method, gamma));
        assertMatrixClose(got, asMatrix(expected), `credits ${method}`);
      }
      return true;
    }
    if (key === "trajectory_scores") {
      for (const [method, expected] of Object.entries(asObject(value, key))) {
        const got = trajectories.map((t) => computeTrajectoryScore(t.turnRewards, method, gamma));
        assertAllClose(got, asNumbers(expected), `score ${method}`);
      }
      return true;
    }
    if (key === "token_advantages") {
      for (const [combo, expectedJson] of Object.entries(asObject(value, key))) {
        const [turnCredit, scoreSpec] = combo.split("/");
        const noStd = scoreSpec.endsWith("_no_std");
        const result = computeMultiTurnCredits(
          trajectories.map((t) => t.turnRewards),
          index,
          {
            turnCredit,
            trajectoryScore: noStd ? scoreSpec.slice(0, -"_no_std".length) : scoreSpec,
            gamma,
            epsilon,
            normalizeByStd: !noStd,
          },
        );
        const rows = trajectories.map((t, i) => computeMultiTurnTokenAdvantages(result.trajectories[i], t.turnIds, t.mask));
        forEachKey(asObject(expectedJson, combo), combo, (field, fieldValue) => {
          if (field === "group_normalized_score") {
            assertAllClose(
              result.trajectories.map((t) => t.normalizedScore),
              asNumbers(fieldValue),
              `${combo} n`,
            );
          } else if (field === "advantages") {
            assertMatrixClose(rows, asMatrix(fieldValue), `${combo} token advantages`);
          } else if (field === "mean_over_nonzero_tokens") {
            const means = rows.map((r) => {
              const nz = r.filter((x) => x !== 0);
              return nz.length ? nz.reduce((a, b) => a + b, 0) / nz.length : 0;
            });
            assertAllClose(means, asNumbers(fieldValue), `${combo} mean over nonzero`);
          } else return false;
          return true;
        });
      }
      return true;
    }
    return false;
  });
}

const SECTIONS: Record<string, (section: JsonObject) => void> = {
  grpo_outcome_advantage: (s) =>
    forEachKey(s, "grpo_outcome_advantage", (key, value) => {
      if (key !== "cases") return false;
      for (const c of value as JsonObject[]) checkOutcomeCase(c);
      return true;
    }),
  trl_unscorable_completion: (s) => {
    const rewards = (s.rewards as string[]).map((r) => (r === "None" ? null : Number(r)));
    const groupIds = rewards.map((_, i) => Math.floor(i / (s.num_generations as number)));
    const result = computeGroupAdvantages(rewards, groupIds, { estimator: "trl" });
    forEachKey(s, "trl_unscorable_completion", (key, value) => {
      if (key === "rewards" || key === "num_generations") return true;
      if (key === "advantages") assertAllClose(result.advantages, asNumbers(value), key);
      else if (key === "group_mean_nanmean") assertClose(result.groups[0].mean ?? NaN, value as number, key);
      else if (key === "group_std_nanstd_unbiased") assertClose(result.groups[0].std ?? NaN, value as number, key);
      else if (key === "contrast_if_none_became_0") {
        const wrong = computeGroupAdvantages(
          rewards.map((r) => r ?? 0),
          groupIds,
          { estimator: "trl" },
        );
        assertAllClose(wrong.advantages, asNumbers(value), key);
      } else return false;
      return true;
    });
  },
  trl_scale_rewards_batch: (s) => {
    const rewards = asNumbers(s.rewards);
    const groupIds = rewards.map((_, i) => Math.floor(i / (s.num_generations as number)));
    forEachKey(s, "trl_scale_rewards_batch", (key, value) => {
      if (key === "rewards" || key === "num_generations") return true;
      if (key !== "advantages") return false;
      const result = computeGroupAdvantages(rewards, groupIds, { estimator: "trl", scaleRewards: "batch" });
      assertAllClose(result.advantages, asNumbers(value), key);
      return true;
    });
  },
  policy_loss: checkPolicyLossSection,
  edge_cases: checkEdgeCases,
  dapo_dynamic_sampling: (s) =>
    forEachKey(s, "dapo_dynamic_sampling", (key, value) => {
      if (key === "groups_metric") return true;
      if (key !== "keep") return false;
      const groups = asMatrix(s.groups_metric);
      const metric = groups.flat();
      const ids = groups.flatMap((g, gi) => g.map(() => gi));
      const { keptGroupIds } = filterDynamicSamplingGroups(metric, ids);
      assert.deepEqual(
        groups.map((_, gi) => keptGroupIds.includes(gi)),
        value,
      );
      return true;
    }),
  dapo_overlong_penalty: (s) =>
    forEachKey(s, "dapo_overlong_penalty", (key, value) => {
      if (["max_resp_len", "buffer_len", "penalty_factor", "valid_response_length"].includes(key)) return true;
      if (key !== "overlong_reward") return false;
      const opts = {
        maxResponseLength: s.max_resp_len as number,
        bufferLength: s.buffer_len as number,
        penaltyFactor: s.penalty_factor as number,
      };
      assertAllClose(
        asNumbers(s.valid_response_length).map((l) => computeOverlongPenalty(l, opts)),
        asNumbers(value),
        key,
      );
      return true;
    }),
  userrl_grpo_multiturn: checkMultiTurn,
};

describe("reference vectors (grpo-vectors.json: ../shared/reference, else tests/fixtures/shared/reference)", () => {
  it("has a checker for every section of the file", () => {
    const unknown = Object.keys(ref).filter((k) => k !== "_meta" && !(k in SECTIONS));
    assert.deepEqual(unknown, [], "add a checker for the new section(s)");
  });
  for (const name of Object.keys(SECTIONS)) {
    it(`matches section ${name}`, () => {
      assert.ok(name in ref, `section ${name} disappeared from the reference file`);
      SECTIONS[name](asObject(ref[name], name));
    });
  }
});
