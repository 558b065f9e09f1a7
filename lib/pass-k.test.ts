/**
 * pass^k against τ²-bench's own numbers (tests/fixtures/parity/tau2-pass-hat-k.json, made by
 * scripts/parity/tau2_pass_hat_k.py running τ²'s pass_hat_k and is_successful).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { comb, evalSummaryMetrics, isSuccess, passAtK, passHatK, summariseTrials, type EvalTrial } from "./pass-k";

const fixture = JSON.parse(readFileSync(new URL("../tests/fixtures/parity/tau2-pass-hat-k.json", import.meta.url), "utf8")) as {
  table: { n: number; c: number; k: number; passHatK: number }[];
  mixed: { trials: Record<string, number[]>; successes: Record<string, boolean[]>; passHatKs: Record<string, number>; avgReward: number };
};

test("pass^k of one task equals τ²-bench's pass_hat_k for every (n, c, k) up to 16 trials, exactly", () => {
  let exact = 0;
  for (const row of fixture.table) {
    const got = passHatK(row.n, row.c, row.k);
    if (row.n <= 16) {
      assert.equal(got, row.passHatK, `n=${row.n} c=${row.c} k=${row.k}`);
      exact++;
    } else assert.ok(Math.abs(got - row.passHatK) <= 1e-15 * Math.max(1, row.passHatK), `n=${row.n} c=${row.c} k=${row.k}`);
  }
  assert.ok(exact > 1000, `${exact} cases compared`);
});

test("like τ², pass^k refuses k above the number of trials", () => {
  assert.throws(() => passHatK(3, 2, 4), /less than k/);
  assert.equal(comb(5, 7), 0n);
  assert.equal(comb(52, 5), 2598960n);
});

test("success is a reward of 1 (τ²'s tolerance); partial credit is not", () => {
  for (const [trial, ok] of fixture.mixed.trials["task-d"].map((r, i) => [r, fixture.mixed.successes["task-d"][i]] as const))
    assert.equal(isSuccess(trial), ok);
  assert.equal(isSuccess(1 - 1e-7), true);
  assert.equal(isSuccess(null), false);
});

test("a mixed agent's run: pass^1..4 and the mean reward are τ²'s compute_metrics figures", () => {
  const trials: EvalTrial[] = Object.entries(fixture.mixed.trials).flatMap(([taskId, rewards]) =>
    rewards.map((reward) => ({ taskId, reward, costUsd: 0.01 })),
  );
  const s = summariseTrials(trials);
  assert.equal(s.maxK, 4);
  for (const [k, v] of Object.entries(fixture.mixed.passHatKs)) assert.ok(Math.abs(s.passHat[Number(k)] - v) < 1e-12, `pass^${k}`);
  assert.ok(Math.abs((s.rewardMean ?? NaN) - fixture.mixed.avgReward) < 1e-12);
  assert.equal(s.tasks, 5);
  assert.equal(s.trials, 20);
  assert.ok(Math.abs(s.costUsd - 0.2) < 1e-12);
  const b = s.perTask.find((t) => t.taskId === "task-b")!;
  assert.deepEqual([b.trials, b.successes], [4, 2]);
  assert.equal(b.passHat[1], 1 / 6, "two of four: C(2,2)/C(4,2)");
  // pass@k: task-c never succeeds, the others do at least once in any 4 of 4.
  assert.equal(s.passAt[4], 4 / 5);
  assert.equal(passAtK(4, 2, 2), 1 - 1 / 6);
  const m = evalSummaryMetrics(s);
  assert.equal(m["eval/pass@1"], s.passHat[1]);
  assert.equal(m["eval/pass^4"], s.passHat[4]);
  assert.equal(m["eval/pass^k"], s.passHat[4]);
  assert.equal(m["eval/pass@4"], 4 / 5);
});

test("unscored trials are left out and counted, never scored 0; max k drops to the fewest scored trials", () => {
  const s = summariseTrials([
    { taskId: "a", reward: 1 },
    { taskId: "a", reward: 1 },
    { taskId: "a", reward: null },
    { taskId: "b", reward: 1, components: { db: 1 } },
    { taskId: "b", reward: 0, components: { db: 0 } },
    { taskId: "b", reward: 1, components: { db: 1 } },
  ]);
  assert.equal(s.unscored, 1);
  assert.equal(s.maxK, 2);
  assert.equal(s.passHat[1], (1 + 2 / 3) / 2);
  assert.equal(s.passHat[2], (1 + 1 / 3) / 2);
  assert.equal(s.rewardMean, 4 / 5);
  assert.deepEqual(s.components, { db: 2 / 3 });
  assert.deepEqual(
    s.perTask.map((t) => t.taskId),
    ["a", "b"],
  );
  assert.equal(summariseTrials([{ taskId: "x", reward: null }]).maxK, 0);
});
