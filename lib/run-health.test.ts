import { test } from "node:test";
import assert from "node:assert/strict";
import { assessRunHealth, type HealthTrajectory } from "./run-health";

const series = (values: number[]) => values.map((value, step) => ({ step, value }));
const traj = (step: number, over: Partial<HealthTrajectory> = {}): HealthTrajectory => ({
  step,
  reward: 0.5,
  status: "ok",
  endReason: "user_done",
  components: {},
  policyTurns: 3,
  formatErrors: 0,
  ...over,
});
const kinds = (input: Parameters<typeof assessRunHealth>[0]) => assessRunHealth(input).map((p) => p.kind);

test("a healthy run has no problems", () => {
  const metrics = {
    "reward/mean": series([0.1, 0.2, 0.3, 0.3, 0.4, 0.5]),
    "reward/zero_variance_group_frac": series([0.25, 0.25, 0, 0.5, 0.25, 0]),
    "adv/min": series([-1, -1, -1, -1, -1, -1]),
    "adv/max": series([1, 1, 1, 1, 1, 1]),
    "grad/norm": series([0.3, 0.2, 0.4, 0.1, 0.2, 0.3]),
  };
  const trajectories = [0, 1, 2].flatMap((s) => [traj(s), traj(s, { reward: 0, endReason: "max_turns" })]);
  assert.deepEqual(assessRunHealth({ metrics, trajectories }), []);
});

test("a run that cannot learn: no variance, zero advantage, zero gradient and a constant reward, each reported once with its steps", () => {
  const flat = series([0, 0, 0, 0, 0, 0, 0, 0]);
  const problems = assessRunHealth({
    metrics: {
      "reward/mean": flat,
      "reward/zero_variance_group_frac": series([1, 1, 1, 1, 1, 1, 1, 1]),
      "adv/min": flat,
      "adv/max": flat,
      "grad/norm": flat,
    },
    trajectories: [],
  });
  assert.deepEqual(problems.map((p) => p.kind).sort(), ["constant_reward", "no_variance", "zero_advantage", "zero_gradient"]);
  const noVariance = problems.find((p) => p.kind === "no_variance")!;
  assert.deepEqual([noVariance.firstStep, noVariance.lastStep, noVariance.steps, noVariance.stepsChecked], [0, 7, 8, 8]);
  assert.equal(noVariance.severity, "error");
  assert.match(noVariance.detail, /100% of groups/);
  assert.ok(problems.every((p) => p.severity === "error"));
});

test("a problem on a minority of steps is not reported; on most steps it is", () => {
  const grad = series([0.2, 0, 0.3, 0.1]);
  assert.deepEqual(kinds({ metrics: { "grad/norm": grad }, trajectories: [] }), []);
  assert.deepEqual(kinds({ metrics: { "grad/norm": series([0, 0, 0.3, 0]) }, trajectories: [] }), ["zero_gradient"]);
});

test("context_full as the dominant end, unparsable turns, and every judgement failing", () => {
  const full = [0, 1].flatMap((s) => [traj(s, { endReason: "context_full" }), traj(s, { endReason: "context_full" }), traj(s)]);
  const contextFull = assessRunHealth({ metrics: {}, trajectories: full });
  assert.deepEqual(
    contextFull.map((p) => p.kind),
    ["context_full"],
  );
  assert.match(contextFull[0].detail, /67% of episodes ended context_full on 2 of 2 steps/);

  const garbled = [0, 1].flatMap((s) => [traj(s, { formatErrors: 3 }), traj(s, { formatErrors: 2 })]);
  assert.deepEqual(kinds({ metrics: {}, trajectories: garbled }), ["format_failure"]);

  const unscored = [0, 1, 2].flatMap((s) => [traj(s, { status: "unscored", reward: null }), traj(s, { status: "unscored", reward: null })]);
  assert.deepEqual(kinds({ metrics: {}, trajectories: unscored }), ["unscored"]);
  const mostly = [...unscored, traj(2)];
  assert.deepEqual(kinds({ metrics: {}, trajectories: mostly }), ["unscored"], "2 of 3 steps fully unscored is still most steps");
});

test("the judge gives credit while every programmatic outcome is 0", () => {
  const pleased = (s: number) => traj(s, { reward: 0.3, components: { goal_completion: 0, judge_quality: 0.6, tool_errors: 2 } });
  const earned = (s: number) => traj(s, { reward: 0.9, components: { goal_completion: 1, judge_quality: 0.8 } });
  const bad = [0, 1].flatMap((s) => [pleased(s), pleased(s), pleased(s), earned(s)]);
  const problems = assessRunHealth({ metrics: {}, trajectories: bad });
  assert.deepEqual(
    problems.map((p) => p.kind),
    ["judge_only_credit"],
  );
  assert.match(problems[0].detail, /75% of the episodes the judge rewarded/);
  const good = [0, 1].flatMap((s) => [earned(s), earned(s), earned(s), pleased(s)]);
  assert.deepEqual(kinds({ metrics: {}, trajectories: good }), []);
});

test("the unparsable share is unparsable turns over policy turns, never above 100%", () => {
  // 1 of 2 turns unparsable in every episode: 50%, under the threshold; an episode claiming more errors than turns
  // counts each turn once.
  const half = [0, 1].flatMap((s) => [traj(s, { policyTurns: 2, formatErrors: 1 }), traj(s, { policyTurns: 2, formatErrors: 1 })]);
  assert.deepEqual(kinds({ metrics: {}, trajectories: half }), []);
  const overcounted = [0, 1].flatMap((s) => [traj(s, { policyTurns: 2, formatErrors: 4 }), traj(s, { policyTurns: 3, formatErrors: 6 })]);
  const [problem] = assessRunHealth({ metrics: {}, trajectories: overcounted });
  assert.equal(problem.kind, "format_failure");
  assert.match(problem.detail, /^100% of policy turns/);
  const mixed = [0, 1].flatMap((s) => [traj(s, { policyTurns: 4, formatErrors: 3 }), traj(s, { policyTurns: 4, formatErrors: 4 })]);
  assert.match(assessRunHealth({ metrics: {}, trajectories: mixed })[0].detail, /^88% of policy turns/, "7 of 8");
});

test("a run that already had SFT warm-up is not told to add one", () => {
  const garbled = [0, 1].flatMap((s) => [traj(s, { formatErrors: 3 }), traj(s, { formatErrors: 3 })]);
  const noVar = { "reward/zero_variance_group_frac": series([1, 1, 1]) };
  const fresh = assessRunHealth({ metrics: noVar, trajectories: garbled });
  assert.match(fresh.find((p) => p.kind === "format_failure")!.detail, /An SFT warm-start on demonstrations/);
  const warmed = assessRunHealth({ metrics: noVar, trajectories: garbled, sftWarmupSteps: 40 });
  for (const p of warmed) assert.doesNotMatch(p.detail, /An SFT warm-start|\(SFT warm-start/, p.kind);
  assert.match(warmed.find((p) => p.kind === "format_failure")!.detail, /already began with 40 SFT warm-up steps/);
  assert.match(warmed.find((p) => p.kind === "no_variance")!.detail, /more than this run's 40 SFT warm-up steps/);
});
