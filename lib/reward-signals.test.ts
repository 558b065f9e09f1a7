import { test } from "node:test";
import assert from "node:assert/strict";
import {
  abnormalEnding,
  computeSignals,
  nearIdenticalGroups,
  programmaticCheck,
  rewardEvalDivergence,
  sharpDrift,
  simulatorErrorConcentration,
  textSimilarity,
  type SignalTrajectory,
} from "./reward-signals";

let n = 0;
function traj(over: Partial<SignalTrajectory>): SignalTrajectory {
  n++;
  return {
    id: `t${n}`,
    step: 0,
    groupId: "g",
    reward: 1,
    status: "ok",
    endReason: "agent_finished",
    numTurns: 3,
    finalState: null,
    expectedState: null,
    policyText: `answer number ${n} with some different words ${n * 7}`,
    formatErrors: 0,
    simulatorErrors: 0,
    ...over,
  };
}

test("judge-vs-state mismatch is flagged both ways, with the offending trajectories as examples", () => {
  const hacked = traj({ reward: 1, finalState: { db: { day: "Mon" } }, expectedState: { db: { day: "Fri" } } });
  const harsh = traj({ reward: 0, finalState: { db: { day: "Fri" } }, expectedState: { db: { day: "Fri" } } });
  const spec = traj({ reward: 1, finalState: { calls: [] }, expectedState: { calls: [], facts: [] } });
  const signals = computeSignals({
    trajectories: [hacked, harsh, spec],
    rewardSeries: [],
    evalSeries: [],
    lengthSeries: [],
    turnsSeries: [],
  });
  const high = signals.find((s) => s.kind === "judge_high_check_fails");
  assert.deepEqual(high?.examples, [hacked.id], "a spec-shaped expected state is not compared");
  assert.deepEqual(signals.find((s) => s.kind === "judge_low_check_passes")?.examples, [harsh.id]);
  assert.equal(
    programmaticCheck({ finalState: null, expectedState: null, formatErrors: 2, status: "ok" }),
    false,
    "format errors fail the check",
  );
});

test("train reward up while eval reward down is flagged at the eval step", () => {
  const train = Array.from({ length: 21 }, (_, s) => ({ step: s, value: 0.2 + 0.02 * s }));
  const evalSeries = [
    { step: 9, value: 0.5 },
    { step: 19, value: 0.4 },
  ];
  const s = rewardEvalDivergence(train, evalSeries);
  assert.equal(s.length, 1);
  assert.equal(s[0].step, 19);
  assert.equal(
    rewardEvalDivergence(train, [
      { step: 9, value: 0.5 },
      { step: 19, value: 0.6 },
    ]).length,
    0,
  );
});

test("a sharp jump in response length is flagged; a slow trend is not", () => {
  const slow = Array.from({ length: 20 }, (_, s) => ({ step: s, value: 40 + s }));
  assert.equal(sharpDrift(slow, "length_drift").length, 0);
  const jump = [...slow.slice(0, 10), { step: 10, value: 200 }];
  const s = sharpDrift(jump, "length_drift");
  assert.equal(s.length, 1);
  assert.equal(s[0].step, 10);
});

test("groups of near-identical samples are flagged; diverse groups are not", () => {
  assert.equal(textSimilarity("I will move it to Friday.", "i will  move it to friday."), 1);
  const same = [0, 1, 2, 3].map(() => traj({ groupId: "same", step: 4, policyText: "Your flight is now on Friday. Anything else?" }));
  const diverse = [0, 1, 2, 3].map(() => traj({ groupId: "diverse", step: 4 }));
  const s = nearIdenticalGroups([...same, ...diverse]);
  assert.equal(s.length, 1);
  assert.match(s[0].detail, /1 of 2 groups/);
  assert.equal(s[0].examples[0], same[0].id);
});

test("early user exits and simulator errors piling up in low-reward episodes are flagged", () => {
  assert.equal(
    abnormalEnding({ status: "ok", endReason: "user_done", numTurns: 1 }),
    "the simulated user ended after at most one agent turn",
  );
  assert.equal(abnormalEnding({ status: "ok", endReason: "user_done", numTurns: 4 }), null);
  const rows = [
    traj({ reward: 0, simulatorErrors: 2, endReason: "max_sim_steps" }),
    traj({ reward: 0, simulatorErrors: 1 }),
    traj({ reward: 0 }),
    traj({ reward: 1 }),
    traj({ reward: 1 }),
  ];
  const s = simulatorErrorConcentration(rows);
  assert.equal(s.length, 1);
  assert.equal(s[0].examples.length, 2);
  const all = computeSignals({ trajectories: rows, rewardSeries: [], evalSeries: [], lengthSeries: [], turnsSeries: [] });
  assert.ok(all.some((x) => x.kind === "abnormal_ending" && x.step === 0));
  assert.ok(all.some((x) => x.kind === "simulator_errors_in_low_reward" && x.step === 0));
  assert.equal(simulatorErrorConcentration([traj({ reward: 0, simulatorErrors: 1 }), traj({ reward: 1, simulatorErrors: 1 })]).length, 0);
});
