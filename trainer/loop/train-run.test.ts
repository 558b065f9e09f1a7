import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseRunConfig, type RunConfigInput } from "../../lib/run-config";
import { MAX_UNSCORED_STEPS, NoLearningSignalError, trainRun } from "./train-run";
import { createFakeDeps } from "./testing/fake-deps";
import { createMemorySink } from "./memory-sink";
import type { StopControl, StopReason } from "./types";

const base: RunConfigInput = {
  seed: 11,
  grpo: { steps: 6, groupsPerStep: 3, groupSize: 4, minibatchSize: 12 },
  checkpoint: { saveFreq: 2, keepLast: 2 },
  evaluation: { testFreq: 3, samplesPerTask: 2, maxTasks: 2 },
};

function control(stopAfter?: { steps: number; reason: StopReason }, sink?: ReturnType<typeof createMemorySink>): StopControl {
  const ac = new AbortController();
  return {
    signal: ac.signal,
    reason: () => (stopAfter && sink && sink.steps.size >= stopAfter.steps ? stopAfter.reason : null),
  };
}

const tmp = () => mkdtempSync(path.join(tmpdir(), "rl-loop-"));

async function uninterruptedRewards(config = parseRunConfig(base)) {
  const sink = createMemorySink();
  await trainRun(config, createFakeDeps({ checkpointDir: tmp() }), sink, control());
  return sink;
}

test("a full run records every step once, evaluates every testFreq and keeps the last K checkpoints", async () => {
  const dir = tmp();
  const deps = createFakeDeps({ checkpointDir: dir });
  const sink = createMemorySink();
  const outcome = await trainRun(parseRunConfig(base), deps, sink, control());
  assert.deepEqual(outcome, { kind: "completed", steps: 6 });
  assert.deepEqual([...sink.steps.keys()], [0, 1, 2, 3, 4, 5]);
  const rewards = sink.series("reward/mean").map(([, v]) => v);
  assert.ok(rewards[5] > rewards[0], `reward rises as the fake policy improves: ${rewards}`);
  assert.deepEqual(
    sink.series("eval/pass@1").map(([s]) => s),
    [2, 5],
  );
  assert.equal(sink.steps.get(2)?.groups.filter((g) => g.split === "eval").length, 2);
  assert.deepEqual(sink.checkpoints.map((c) => c.step).sort(), [4, 6]);
  assert.equal(existsSync(path.join(dir, "step-2")), false, "pruned checkpoint files are deleted");
  assert.ok(existsSync(path.join(dir, "step-6")));
  const t = sink.steps.get(0)!.groups[0].trajectories;
  assert.ok(Math.abs(t.reduce((s, x) => s + (x.advantage ?? 0), 0)) < 1e-9, "group-relative advantages sum to 0");
  assert.ok(sink.series("time/rollout_s").length === 6 && sink.series("time/checkpoint_s").length === 3);
});

test("shutdown stops at a step boundary with a checkpoint, and the resumed run continues the same curves", async () => {
  const reference = await uninterruptedRewards();
  const dir = tmp();
  const sink = createMemorySink();
  const first = await trainRun(
    parseRunConfig(base),
    createFakeDeps({ checkpointDir: dir }),
    sink,
    control({ steps: 3, reason: "shutdown" }, sink),
  );
  assert.deepEqual(first, { kind: "stopped", reason: "shutdown", steps: 3 });
  assert.ok(
    sink.checkpoints.some((c) => c.step === 3),
    "checkpoint taken on stop even off the saveFreq grid",
  );
  // A new process: fresh policy state, same database rows and checkpoint files.
  const second = await trainRun(parseRunConfig(base), createFakeDeps({ checkpointDir: dir }), sink, control());
  assert.deepEqual(second, { kind: "completed", steps: 6 });
  assert.deepEqual(sink.series("reward/mean"), reference.series("reward/mean"));
  assert.deepEqual(sink.series("eval/pass^k"), reference.series("eval/pass^k"));
});

test("a crash after recording steps past the last checkpoint: those steps are re-run, no gap, no duplicate", async () => {
  const reference = await uninterruptedRewards();
  const dir = tmp();
  const sink = createMemorySink();
  await assert.rejects(
    trainRun(parseRunConfig(base), createFakeDeps({ checkpointDir: dir, failAtStep: 5 }), sink, control()),
    /simulated crash/,
  );
  assert.deepEqual([...sink.steps.keys()], [0, 1, 2, 3, 4]);
  const deps = createFakeDeps({ checkpointDir: dir });
  await trainRun(parseRunConfig(base), deps, sink, control());
  assert.deepEqual([...deps.rolloutsPerStep.keys()].sort(), [4, 5], "resumed from the step-4 checkpoint");
  assert.deepEqual(sink.series("reward/mean"), reference.series("reward/mean"));
});

test("cancel takes effect at the next step boundary and checkpoints", async () => {
  const sink = createMemorySink();
  const outcome = await trainRun(
    parseRunConfig(base),
    createFakeDeps({ checkpointDir: tmp() }),
    sink,
    control({ steps: 1, reason: "cancel" }, sink),
  );
  assert.deepEqual(outcome, { kind: "stopped", reason: "cancel", steps: 1 });
  assert.deepEqual(
    sink.checkpoints.map((c) => c.step),
    [1],
  );
});

/** Deps whose update of `atStep` is where the stop arrives (the update checks its signal, as the real one does). */
function stopDuringUpdate(reason: StopReason, atStep: number) {
  const ac = new AbortController();
  let why: StopReason | null = null;
  const checkpointDir = tmp();
  const deps = createFakeDeps({ checkpointDir });
  const update = deps.update.bind(deps);
  deps.update = async (groups, step, signal) => {
    if (step === atStep) {
      why = reason;
      ac.abort(new Error(`stopped: ${reason}`));
      await new Promise((resolve) => setTimeout(resolve, 5));
      signal.throwIfAborted();
    }
    return update(groups, step, signal);
  };
  return { deps, checkpointDir, control: { signal: ac.signal, reason: () => why } satisfies StopControl };
}

test("a shutdown during an update lets it finish: the step is recorded and checkpointed, not thrown away", async () => {
  const reference = await uninterruptedRewards();
  const { deps, checkpointDir, control: stop } = stopDuringUpdate("shutdown", 2);
  const sink = createMemorySink();
  const outcome = await trainRun(parseRunConfig(base), deps, sink, stop);
  assert.deepEqual(outcome, { kind: "stopped", reason: "shutdown", steps: 3 });
  assert.deepEqual([...sink.steps.keys()], [0, 1, 2]);
  assert.deepEqual(sink.checkpoints.map((c) => c.step).sort(), [2, 3]);
  assert.equal(sink.steps.get(2)!.groups.filter((g) => g.split === "eval").length, 0, "the step's evaluation is skipped");
  const resumed = await trainRun(parseRunConfig(base), createFakeDeps({ checkpointDir }), sink, control());
  assert.deepEqual(resumed, { kind: "completed", steps: 6 });
  assert.deepEqual(sink.series("reward/mean"), reference.series("reward/mean"));
});

test("a cancel during an update interrupts it: the run keeps its last checkpoint and says so", async () => {
  const { deps, control: stop } = stopDuringUpdate("cancel", 2);
  const sink = createMemorySink();
  const outcome = await trainRun(parseRunConfig(base), deps, sink, stop);
  assert.deepEqual(outcome, { kind: "stopped", reason: "cancel", steps: 2 });
  assert.deepEqual([...sink.steps.keys()], [0, 1]);
  assert.ok(sink.events.some((e) => /Stopped during the update of step 2; the run resumes from its checkpoint at step 2/.test(e.message)));
});

test("an unreadable newest checkpoint falls back to an older one with a warning", async () => {
  const dir = tmp();
  const sink = createMemorySink();
  await trainRun(parseRunConfig(base), createFakeDeps({ checkpointDir: dir }), sink, control({ steps: 5, reason: "shutdown" }, sink));
  assert.deepEqual(sink.checkpoints.map((c) => c.step).sort(), [4, 5]);
  writeFileSync(path.join(dir, "step-5", "state.json"), "{ truncated");
  const deps = createFakeDeps({ checkpointDir: dir });
  await trainRun(parseRunConfig(base), deps, sink, control());
  assert.ok(sink.events.some((e) => e.level === "warn" && /step 5 could not be loaded/.test(e.message)));
  assert.deepEqual([...deps.rolloutsPerStep.keys()].sort(), [4, 5]);
});

/** Every sample of group 0 scores 1: a group whose rewards do not vary (what DAPO dynamic sampling drops). */
function withFlatGroupZero(deps: ReturnType<typeof createFakeDeps>) {
  const real = deps.runGroup.bind(deps);
  deps.runGroup = async (req) => {
    const r = await real(req);
    if (req.groupIndex === 0) for (const s of r.samples) s.record.reward = 1;
    return r;
  };
  return deps;
}

test("DAPO dynamic sampling drops flat groups and samples more until the batch has signal; 0 extra rounds trains on the rest", async () => {
  const config = parseRunConfig({ ...base, grpo: { ...base.grpo, steps: 1, dynamicSampling: true }, evaluation: { testFreq: 0 } });
  const deps = withFlatGroupZero(createFakeDeps({ checkpointDir: tmp() }));
  const sink = createMemorySink();
  await trainRun(config, deps, sink, control());
  const step = sink.steps.get(0)!;
  assert.deepEqual(
    step.groups.map((g) => g.dropped),
    [true, false, false, false],
    "one extra group refills the batch of 3",
  );
  assert.equal(step.metrics["train/samples"], 12);
  assert.equal(step.metrics["dapo/extra_rounds"], 1);
  assert.equal(step.metrics["dapo/groups_trained"], 3);
  assert.ok((step.events ?? []).some((e) => /after 1 extra sampling round/.test(e.message)));

  const noRefill = parseRunConfig({
    ...base,
    grpo: { ...base.grpo, steps: 1, dynamicSampling: true, dynamicSamplingMaxRounds: 0 },
    evaluation: { testFreq: 0 },
  });
  const sink0 = createMemorySink();
  await trainRun(noRefill, withFlatGroupZero(createFakeDeps({ checkpointDir: tmp() })), sink0, control());
  assert.deepEqual(
    sink0.steps.get(0)!.groups.map((g) => g.dropped),
    [true, false, false],
  );
  assert.equal(sink0.steps.get(0)!.metrics["train/samples"], 8);
  assert.equal(sink0.steps.get(0)!.metrics["reward/zero_variance_group_frac"], 1 / 3);
});

test("DAPO's refill stops after its rounds when no group has signal, and the step trains nothing", async () => {
  const config = parseRunConfig({
    ...base,
    grpo: { ...base.grpo, steps: 1, dynamicSampling: true, dynamicSamplingMaxRounds: 2 },
    evaluation: { testFreq: 0 },
  });
  const deps = createFakeDeps({ checkpointDir: tmp() });
  const real = deps.runGroup.bind(deps);
  deps.runGroup = async (req) => {
    const r = await real(req);
    for (const s of r.samples) s.record.reward = 0.5;
    return r;
  };
  const sink = createMemorySink();
  await trainRun(config, deps, sink, control());
  const step = sink.steps.get(0)!;
  assert.equal(step.groups.length, 3 + 3 + 3, "two extra rounds of 3 groups each");
  assert.ok(step.groups.every((g) => g.dropped));
  assert.equal(step.metrics["dapo/extra_rounds"], 2);
  assert.ok((step.events ?? []).some((e) => /not updated/.test(e.message)));
});

test("adjustScores shapes the scores advantages use; rewards stay the environment's and unscored samples stay unscored", async () => {
  const config = parseRunConfig({ ...base, grpo: { ...base.grpo, steps: 1 }, evaluation: { testFreq: 0 } });
  const deps = createFakeDeps({ checkpointDir: tmp() });
  const real = deps.runGroup.bind(deps);
  deps.runGroup = async (req) => {
    const r = await real(req);
    r.samples[3].record.reward = null;
    return r;
  };
  // Penalise sample 0 of every group heavily and try to give the unscored sample a number.
  deps.adjustScores = async (groups) => ({
    scores: groups.map((g) => g.rewards.map((r, i) => (i === 0 ? (r ?? 0) - 10 : i === 3 ? 5 : r))),
    metrics: { "kl/in_reward_mean": 0.25 },
  });
  const sink = createMemorySink();
  await trainRun(config, deps, sink, control());
  const step = sink.steps.get(0)!;
  for (const g of step.groups) {
    const [a0, a1, a2, a3] = g.trajectories.map((t) => t.advantage);
    assert.ok(
      (a0 as number) < 0 && (a0 as number) < (a1 as number) && (a0 as number) < (a2 as number),
      "the penalised sample has the lowest advantage",
    );
    assert.equal(a3, null, "an unscored sample gets no advantage even if the hook returned a score");
    assert.equal(g.trajectories[3].reward, null);
    assert.notEqual(g.trajectories[0].reward, null, "the recorded reward is the environment's, not the shaped score");
    assert.ok((g.trajectories[0].reward as number) >= 0);
  }
  assert.equal(step.metrics["kl/in_reward_mean"], 0.25);
});

test("warmStart runs before the first step of a fresh run only, and its metrics and events are recorded with step 0", async () => {
  const dir = tmp();
  const sink = createMemorySink();
  let calls = 0;
  const withWarmStart = () => {
    const deps = createFakeDeps({ checkpointDir: dir });
    deps.warmStart = async () => {
      calls++;
      deps.state.skill += 100; // a warm start changes the weights the first step samples from
      return { metrics: { "sft/loss_first": 3, "sft/loss_last": 1 }, events: [{ level: "info", message: "SFT warm-start: 2 steps" }] };
    };
    return deps;
  };
  await trainRun(parseRunConfig(base), withWarmStart(), sink, control({ steps: 3, reason: "shutdown" }, sink));
  assert.equal(calls, 1);
  assert.ok(sink.phases.includes("warm-start"));
  assert.deepEqual(sink.series("sft/loss_first"), [[0, 3]]);
  assert.deepEqual(sink.series("sft/loss_last"), [[0, 1]]);
  assert.equal(sink.steps.get(0)!.events?.[0].message, "SFT warm-start: 2 steps");
  assert.ok(sink.series("reward/mean")[0][1] > 0.9, "step 0 sampled from the warm-started policy");
  await trainRun(parseRunConfig(base), withWarmStart(), sink, control());
  assert.equal(calls, 1, "a run resumed from a checkpoint does not warm-start again");
  assert.deepEqual([...sink.steps.keys()], [0, 1, 2, 3, 4, 5]);
});

test("DAPO dynamic sampling judges a group by its task rewards even when shaped scores differ", async () => {
  const config = parseRunConfig({
    ...base,
    grpo: { ...base.grpo, steps: 1, dynamicSampling: true, dynamicSamplingMaxRounds: 0 },
    evaluation: { testFreq: 0 },
  });
  const deps = withFlatGroupZero(createFakeDeps({ checkpointDir: tmp() }));
  deps.adjustScores = async (groups) => ({ scores: groups.map((g) => g.rewards.map((r, i) => (r ?? 0) - 0.01 * i)), metrics: {} });
  const sink = createMemorySink();
  await trainRun(config, deps, sink, control());
  assert.deepEqual(
    sink.steps.get(0)!.groups.map((g) => g.dropped),
    [true, false, false],
  );
});

test("rollout metrics a group reports are recorded as their mean over the step's train groups", async () => {
  const config = parseRunConfig({ ...base, grpo: { ...base.grpo, steps: 1 }, evaluation: { testFreq: 1, samplesPerTask: 2, maxTasks: 1 } });
  const deps = createFakeDeps({ checkpointDir: tmp() });
  const real = deps.runGroup.bind(deps);
  deps.runGroup = async (req) => {
    const r = await real(req);
    // train groups report 1, 2, 3 (group 2 also a non-finite value, which is ignored); eval groups 100
    const v = req.split === "train" ? req.groupIndex + 1 : 100;
    return { ...r, metrics: { "rollout/policy_batch_mean": v, ...(req.groupIndex === 2 ? { "rollout/odd": NaN } : {}) } };
  };
  const sink = createMemorySink();
  await trainRun(config, deps, sink, control());
  const metrics = sink.steps.get(0)!.metrics;
  assert.equal(metrics["rollout/policy_batch_mean"], 2);
  assert.equal("rollout/odd" in metrics, false);
});

test("a run whose every judgement fails is failed after a few steps, not finished as succeeded", async () => {
  const sink = createMemorySink();
  const deps = createFakeDeps({ checkpointDir: tmp(), unscoredFromStep: 1 });
  await assert.rejects(trainRun(parseRunConfig(base), deps, sink, control()), (err: Error) => {
    assert.ok(err instanceof NoLearningSignalError);
    assert.match(
      err.message,
      /^No learning signal: not one trajectory could be scored in 3 step\(s\) in a row \(every judgement or episode failed, e\.g\. "Unscored: judge call failed: 502 Bad Gateway"\)/,
    );
    return true;
  });
  assert.equal(MAX_UNSCORED_STEPS, 3);
  assert.deepEqual([...sink.steps.keys()].sort(), [0, 1, 2, 3], "the unscored steps are recorded, so they can be inspected");
  // One scored step in between resets the count: a short judge outage passes.
  const flaky = createFakeDeps({ checkpointDir: tmp(), unscoredFromStep: 4 });
  const outcome = await trainRun(parseRunConfig({ ...base, grpo: { ...base.grpo, steps: 6 } }), flaky, createMemorySink(), control());
  assert.equal(outcome.kind, "completed", "two unscored final steps are not yet three");
});

test("DAPO's overlong penalty lowers the scores of episodes that reach into the soft zone, before advantages", async () => {
  // 4 turns × 10 new tokens = at most 40 policy tokens; the last 20 are the soft zone, factor 1.
  const config = parseRunConfig({
    ...base,
    rollout: { maxTurns: 4, maxNewTokens: 10 },
    grpo: { ...base.grpo, steps: 1, overlongPenalty: { bufferTokens: 20, factor: 1 } },
    evaluation: { testFreq: 0 },
  });
  const deps = createFakeDeps({ checkpointDir: tmp() });
  const real = deps.runGroup.bind(deps);
  deps.runGroup = async (req) => {
    const r = await real(req);
    r.samples.forEach((s, i) => {
      s.record.reward = 1; // every sample solves the task: only length separates them
      s.record.responseTokens = [10, 20, 30, 40][i];
    });
    return r;
  };
  const sink = createMemorySink();
  await trainRun(config, deps, sink, control());
  const step = sink.steps.get(0)!;
  for (const g of step.groups) {
    const adv = g.trajectories.map((t) => t.advantage as number);
    assert.ok(
      adv[0] === adv[1] && adv[1] > adv[2] && adv[2] > adv[3],
      `shorter than the soft zone ties, then longer is worse: ${adv.join(", ")}`,
    );
    assert.deepEqual(
      g.trajectories.map((t) => t.reward),
      [1, 1, 1, 1],
      "stored rewards stay the environment's",
    );
  }
  // Penalties 0, 0, −0.5, −1 → mean −0.375; half the episodes penalised.
  assert.equal(step.metrics["reward/overlong_penalty_mean"], -0.375);
  assert.equal(step.metrics["reward/overlong_frac"], 0.5);
});

test("the advantages the update trained with are what the step records: per policy turn on the messages, their token mean on the trajectory and in adv/*", async () => {
  const config = parseRunConfig({ ...base, grpo: { ...base.grpo, steps: 1 }, evaluation: { testFreq: 0 } });
  const deps = createFakeDeps({ checkpointDir: tmp() });
  const real = deps.runGroup.bind(deps);
  deps.runGroup = async (req) => {
    const r = await real(req);
    for (const s of r.samples) {
      s.record.conversation = [
        { role: "user", source: "user_simulator", turn: 0, content: "q" },
        { role: "assistant", source: "policy", turn: 0, content: "a0" },
        { role: "user", source: "user_simulator", turn: 1, content: "q2" },
        { role: "assistant", source: "policy", turn: 1, content: "a1" },
      ];
    }
    return r;
  };
  const update = deps.update.bind(deps);
  // Multi-turn credit as the real update computes it: the last turn gets twice the first one's share.
  deps.update = async (groups, step, signal) => ({
    ...(await update(groups, step, signal)),
    advantagesUsed: groups.map((g) => g.samples.map((_, i) => ({ trajectory: 0.1 * (i + 1), turns: [0.05 * (i + 1), 0.1 * (i + 1)] }))),
  });
  const sink = createMemorySink();
  await trainRun(config, deps, sink, control());
  const step = sink.steps.get(0)!;
  for (const g of step.groups) {
    g.trajectories.forEach((t, i) => {
      assert.equal(t.advantage, 0.1 * (i + 1));
      assert.deepEqual(
        t.conversation.filter((m) => m.source === "policy").map((m) => m.advantage),
        [0.05 * (i + 1), 0.1 * (i + 1)],
      );
    });
  }
  assert.equal(step.metrics["adv/max"], 0.4, "adv/* summarise what was trained");
});

test("every step records how long its recording took (time/record_s), after the step's own write", async () => {
  const sink = await uninterruptedRewards();
  for (const [step, record] of sink.steps) {
    const seconds = record.metrics["time/record_s"] ?? NaN;
    assert.ok(Number.isFinite(seconds) && seconds >= 0, `step ${step}`);
  }
});
