/**
 * The GRPO training loop for one run, top to bottom (in the spirit of nanoGPT's train.py):
 *
 *   resume from the last complete checkpoint (or start at step 0)
 *   warm start           fresh runs only: e.g. the SFT warm-start; its metrics and events go with step 0
 *   for each step until grpo.steps, stopping on shutdown / cancel (at once: the abort signal reaches rollouts and
 *   LLM calls; a cancel also the update, while a shutdown lets an update in flight finish so the step is recorded
 *   and checkpointed rather than thrown away; the weights are checkpointed only if they match a completed step):
 *     sample tasks       deterministic from (seed, step): a resume reproduces the uninterrupted order
 *     rollouts           every group's episodes, groups run concurrently (capped); rewards come back scored
 *     shape scores       optional (deps.adjustScores): e.g. reward - klCoef * KL to the reference
 *     advantages         group-relative (trainer/grpo computeGroupAdvantages; unscorable samples excluded)
 *     update             one policy update on the kept groups (DAPO dynamic sampling drops flat groups)
 *     evaluate           every testFreq steps on the eval split: eval/reward_mean, eval/pass@1, eval/pass^k
 *     checkpoint files   every saveFreq steps and at the end
 *     record             the whole step in one transaction (record/record-step.ts)
 *     checkpoint row     after the step is recorded; prune to keepLast
 *
 * Step numbering: steps are 0-based; a checkpoint's `step` is the number of completed steps, i.e. the step a
 * resumed run starts at. Everything the loop touches goes through `LoopDeps` and `RunSink` (types.ts).
 */
import { firstLine } from "../../lib/error-text";
import type { RunConfig } from "../../lib/run-config";
import type { Task } from "../envs/types";
import { computeGroupAdvantages } from "../grpo/advantages";
import { computeOverlongPenalty } from "../grpo/dapo";
import { summariseEval, summariseStep } from "../record/summarise-step";
import type { EventRecord, GroupRecord } from "../record/step-record";
import { mapLimit } from "./map-limit";
import { mixSeed, refillTasks, sampleTasksForStep } from "./task-order";
import type {
  AdjustedScores,
  AdvantagesUsed,
  GroupRollout,
  LoopDeps,
  RunSink,
  StopControl,
  TrainOutcome,
  UpdateGroup,
  WarmStartReport,
} from "./types";

const SPLIT_SALT = { train: 1, eval: 2 } as const;
/**
 * Steps in a row in which no train trajectory could be scored (every judgement failed) before the run is failed:
 * such a run learns nothing, and finishing it as "succeeded" hid a broken judge. A short outage passes.
 */
export const MAX_UNSCORED_STEPS = 3;
const seconds = (since: number) => (performance.now() - since) / 1000;

export async function trainRun<S>(config: RunConfig, deps: LoopDeps<S>, sink: RunSink, control: StopControl): Promise<TrainOutcome> {
  const totalSteps = config.grpo.steps;
  const groupSize = config.grpo.groupSize;
  // Episodes in flight ≈ rollout.concurrency: each group runs its `groupSize` episodes at once.
  const groupConcurrency = Math.max(1, Math.floor(config.rollout.concurrency / groupSize));

  let step = await resumeFromCheckpoint(deps, sink);
  let lastCheckpoint = step;
  // True from the start of an update until its step is recorded: the weights are then ahead of `step`.
  let weightsAhead = false;
  let unscoredSteps = 0;

  // Training rollouts play with their curriculum stage's environment options; evaluations with the run's own, so
  // that evaluation figures compare across stages.
  const rollGroups = (split: "train" | "eval", tasks: Task[], size: number, firstIndex = 0, stage: number | null = null) =>
    mapLimit(tasks, groupConcurrency, (task, i) => {
      const groupIndex = firstIndex + i;
      const seed = mixSeed(config.seed, step, SPLIT_SALT[split], groupIndex);
      return deps.runGroup({ task, step, split, groupIndex, size, seed, signal: control.signal, ...(stage !== null && { stage }) });
    });
  let previousStage: number | null = null;

  try {
    // --- warm start (fresh runs only) ----------------------------------------------------------------------------
    // Recorded with step 0 rather than at once: a crash before step 0 is recorded restarts from fresh weights, and
    // the stage runs (and is reported) again.
    let warm: WarmStartReport | null = null;
    if (step === 0 && deps.warmStart) {
      await sink.setPhase("warm-start");
      // Progress is for the run page; a failed write of it must not stop the warm-up.
      warm = await deps.warmStart(control, async (p) => {
        await sink.recordWarmup?.(p).catch(() => {});
      });
    }

    while (step < totalSteps) {
      const stop = control.reason();
      if (stop) {
        if (stop !== "lease_lost" && step > lastCheckpoint) await checkpoint(step, true);
        return { kind: "stopped", reason: stop, steps: step };
      }
      const events: EventRecord[] = [];
      const stepStarted = performance.now();

      // --- sample tasks -------------------------------------------------------------------------------------
      await sink.setPhase("rollout");
      const selection = deps.sampleTasks
        ? {
            tasks: deps.sampleTasks(step),
            cursor: step * config.grpo.groupsPerStep,
            stageName: null,
            stageIndex: null,
            pool: deps.trainTasks,
          }
        : sampleTasksForStep(config, deps.trainTasks, step);
      if (selection.stageIndex !== null && selection.stageIndex !== previousStage) {
        const stage = config.curriculum[selection.stageIndex];
        const options = stage.environmentOptions ? `, environment options ${JSON.stringify(stage.environmentOptions)}` : "";
        events.push({
          level: "info",
          message: `Curriculum stage ${selection.stageIndex + 1} of ${config.curriculum.length} "${stage.name}" from step ${step}: ${selection.pool.length} tasks${options}.`,
        });
      }
      previousStage = selection.stageIndex;

      // --- rollouts (scored) ----------------------------------------------------------------------------------
      let t0 = performance.now();
      let rollouts = await rollGroups("train", selection.tasks, groupSize, 0, selection.stageIndex);
      let playedTasks = selection.tasks;
      // Episodes cut short by a stop end "normally" (as errors): never score or record them.
      control.signal.throwIfAborted();
      // DAPO: groups whose rewards are all equal are dropped; sample more groups until a full batch has signal,
      // for at most grpo.dynamicSamplingMaxRounds extra rounds.
      let refillRounds = 0;
      if (config.grpo.dynamicSampling) {
        const perStep = config.grpo.groupsPerStep;
        while (refillRounds < config.grpo.dynamicSamplingMaxRounds && groupsWithSignal(rollouts) < perStep) {
          refillRounds++;
          const extra = refillTasks(config, selection.pool, step, refillRounds, perStep - groupsWithSignal(rollouts));
          rollouts = [...rollouts, ...(await rollGroups("train", extra, groupSize, rollouts.length, selection.stageIndex))];
          playedTasks = [...playedTasks, ...extra];
          control.signal.throwIfAborted();
        }
      }
      const rolloutSeconds = seconds(t0);

      // --- shape scores, advantages ---------------------------------------------------------------------------
      const shaped = deps.adjustScores
        ? await deps.adjustScores(
            rollouts.map((r) => ({ samples: r.samples.map((s) => s.sample), rewards: r.samples.map((s) => s.record.reward) })),
            step,
          )
        : null;
      const { groups, updateGroups, metrics: scoreMetrics } = scoreGroups(config, playedTasks, rollouts, shaped);
      const dropped = groups.filter((g) => g.dropped).length;
      if (dropped) {
        const refilled = refillRounds ? ` after ${refillRounds} extra sampling round${refillRounds > 1 ? "s" : ""}` : "";
        events.push({
          level: "info",
          message: `Dynamic sampling dropped ${dropped} of ${groups.length} groups (all rewards equal, or beyond the batch)${refilled}.`,
        });
      }
      // 1-based, so the run page can chart which stage each step trained in.
      if (selection.stageIndex !== null) scoreMetrics["curriculum/stage"] = selection.stageIndex + 1;
      if (config.grpo.dynamicSampling) {
        scoreMetrics["dapo/extra_rounds"] = refillRounds;
        scoreMetrics["dapo/groups_sampled"] = groups.length;
        scoreMetrics["dapo/groups_trained"] = updateGroups.length;
      }
      const unscored = groups.reduce((n, g) => n + g.trajectories.filter((t) => t.reward === null).length, 0);
      if (unscored)
        events.push({ level: "warn", message: `${unscored} trajectories could not be scored; they are excluded from advantages.` });
      const total = groups.reduce((n, g) => n + g.trajectories.length, 0);
      unscoredSteps = total > 0 && unscored === total ? unscoredSteps + 1 : 0;
      const noSignal = unscoredSteps >= Math.min(MAX_UNSCORED_STEPS, totalSteps);

      // --- update ---------------------------------------------------------------------------------------------
      await sink.setPhase("update");
      t0 = performance.now();
      weightsAhead = updateGroups.length > 0;
      const interrupt = updateInterrupt(control);
      const update = updateGroups.length
        ? await deps.update(updateGroups, step, interrupt.signal).finally(interrupt.dispose)
        : (interrupt.dispose(), { metrics: {} });
      const updateSeconds = seconds(t0);
      if ("advantagesUsed" in update && update.advantagesUsed) recordAdvantagesUsed(groups, updateGroups, update.advantagesUsed);
      if (!updateGroups.length)
        events.push({ level: "warn", message: "No group had a learning signal this step; the policy was not updated." });

      // --- evaluate -------------------------------------------------------------------------------------------
      const completed = step + 1;
      let evalGroups: GroupRecord[] = [];
      const testFreq = config.evaluation.testFreq;
      const evaluate = testFreq > 0 && deps.evalTasks.length && (completed % testFreq === 0 || completed === totalSteps);
      if (evaluate && !control.signal.aborted) {
        await sink.setPhase("eval");
        const tasks = deps.evalTasks.slice(0, config.evaluation.maxTasks);
        const evalRollouts = await rollGroups("eval", tasks, config.evaluation.samplesPerTask);
        // An evaluation cut short by a stop is left out (its episodes ended as errors); the step is still recorded.
        if (!control.signal.aborted) evalGroups = tasks.map((task, i) => toGroupRecord("eval", i, task, evalRollouts[i], null, false));
      }

      // The update finished, so the weights are this step's: a shutdown records and checkpoints it (the stop check
      // at the top of the loop saves the checkpoint); only a lost lease must not write.
      if (control.reason() === "lease_lost") control.signal.throwIfAborted();

      // --- checkpoint files (the row follows the recorded step) -----------------------------------------------
      let saved: { location: string; sizeBytes: number } | null = null;
      let checkpointSeconds: number | undefined;
      if (completed % config.checkpoint.saveFreq === 0 || completed === totalSteps) {
        await sink.setPhase("checkpoint");
        t0 = performance.now();
        saved = await deps.saveCheckpoint(completed, { dataCursor: selection.cursor + selection.tasks.length });
        checkpointSeconds = seconds(t0);
      }

      // --- record the whole step atomically -------------------------------------------------------------------
      const metrics = {
        ...summariseStep({
          groups,
          update: update.metrics,
          timings: {
            rollout_s: rolloutSeconds,
            reward_s: rollouts.reduce((s, r) => s + (r.rewardSeconds ?? 0), 0),
            update_s: updateSeconds,
            checkpoint_s: checkpointSeconds,
            // The whole step up to its recording (rollouts, update, evaluation, checkpoint): with time/record_s and
            // time/sft_s, the run's training time, apart from time spent queued or stopped (server/services/runs.ts).
            step_s: seconds(stepStarted),
          },
        }),
        ...summariseEval(evalGroups),
        ...meanOfGroupMetrics(rollouts),
        ...shaped?.metrics,
        ...scoreMetrics,
        ...warm?.metrics,
      };
      if (warm) events.unshift(...warm.events);
      warm = null;
      if (evalGroups.length)
        events.push({
          level: "info",
          message: `Evaluation at step ${step}: pass@1 ${fmt(metrics["eval/pass@1"])}, pass^k ${fmt(metrics["eval/pass^k"])}.`,
        });
      t0 = performance.now();
      await sink.recordStep({
        step,
        groups: [...groups, ...evalGroups],
        metrics,
        events,
        phase: completed === totalSteps ? null : "rollout",
      });
      // What recording costs, per step, on every run (bench:persist measures it in isolation).
      await sink.recordLateMetrics?.(step, { "time/record_s": seconds(t0) });
      step = completed;
      weightsAhead = false;

      if (saved) await commitCheckpoint(step, saved);
      // After recording, so the unscored trajectories (and their failed judge calls) stay inspectable.
      if (noSignal) throw new NoLearningSignalError(unscoredSteps, groups);
    }
    return { kind: "completed", steps: step };
  } catch (err) {
    // A rollout aborted because another worker took the run over is not a failure of the run.
    const reason = control.reason();
    if (reason === "lease_lost") return { kind: "stopped", reason, steps: step };
    if (reason && control.signal.aborted) {
      // Cancel / shutdown mid-step: the step's rollouts are dropped (a resume samples them again, same seeds).
      if (!weightsAhead && step > lastCheckpoint) await checkpoint(step, true);
      else if (weightsAhead) {
        await sink.event(
          "info",
          `Stopped during the update of step ${step}; the run resumes from its checkpoint at step ${lastCheckpoint}.`,
          { step },
        );
      }
      return { kind: "stopped", reason, steps: step };
    }
    throw err;
  }

  /** What may interrupt an update: a cancel or a lost lease, not a graceful shutdown (it waits for the update). */
  function updateInterrupt(stop: StopControl): { signal: AbortSignal; dispose: () => void } {
    const interrupt = new AbortController();
    const onAbort = () => {
      if (stop.reason() !== "shutdown") interrupt.abort(stop.signal.reason);
    };
    if (stop.signal.aborted) onAbort();
    else stop.signal.addEventListener("abort", onAbort, { once: true });
    return { signal: interrupt.signal, dispose: () => stop.signal.removeEventListener("abort", onAbort) };
  }

  async function checkpoint(completed: number, onStop: boolean): Promise<void> {
    await sink.setPhase("checkpoint");
    const saved = await deps.saveCheckpoint(completed, { dataCursor: completed * config.grpo.groupsPerStep });
    await commitCheckpoint(completed, saved);
    if (onStop) await sink.event("info", `Checkpoint saved at step ${completed} before stopping.`, { step: completed });
  }

  async function commitCheckpoint(completed: number, saved: { location: string; sizeBytes: number }): Promise<void> {
    await sink.recordCheckpoint({ step: completed, ...saved });
    lastCheckpoint = completed;
    for (const old of await sink.pruneCheckpoints(config.checkpoint.keepLast)) await deps.deleteCheckpoint?.(old.location);
  }
}

/** Resume point: the newest checkpoint that loads; 0 (fresh weights) when there is none. */
async function resumeFromCheckpoint<S>(deps: LoopDeps<S>, sink: RunSink): Promise<number> {
  for (const cp of await sink.listCheckpoints()) {
    try {
      await deps.loadCheckpoint(cp.location);
      await sink.resetTo(cp.step);
      await sink.event("info", `Resumed from the checkpoint at step ${cp.step}.`, { step: cp.step, data: { location: cp.location } });
      return cp.step;
    } catch (err) {
      await sink.event("warn", `Checkpoint at step ${cp.step} could not be loaded (${firstLine(err)}); trying an older one.`, {
        step: cp.step,
      });
    }
  }
  await sink.resetTo(0);
  return 0;
}

/**
 * Rewards (or shaped scores) → group-relative advantages; builds the records and the update batch. DAPO's dynamic
 * sampling still looks at the environment's rewards: a KL penalty makes scores differ inside a group whose task
 * rewards are all equal, but that difference carries no task signal (verl's DAPO filters on the task metric too).
 */
function scoreGroups<S>(
  config: RunConfig,
  tasks: Task[],
  rollouts: GroupRollout<S>[],
  shaped: AdjustedScores | null,
): { groups: GroupRecord[]; updateGroups: UpdateGroup<S>[]; metrics: Record<string, number> } {
  const rewards = rollouts.flatMap((r) => r.samples.map((s) => s.record.reward));
  const groupIds = rollouts.flatMap((r, g) => r.samples.map(() => g));
  const options = { estimator: config.grpo.advantageEstimator };
  let scores = shaped ? shapedScores(rewards, rollouts, shaped) : rewards;
  const metrics: Record<string, number> = {};
  const overlong = config.grpo.overlongPenalty;
  if (overlong) {
    // DAPO's soft overlong punishment on the episode's policy tokens, against the most it could generate.
    const maxResponseLength = config.rollout.maxNewTokens * config.rollout.maxTurns;
    const opts = { maxResponseLength, bufferLength: Math.min(overlong.bufferTokens, maxResponseLength), penaltyFactor: overlong.factor };
    const penalties = rollouts.flatMap((r) => r.samples.map((s) => computeOverlongPenalty(s.record.responseTokens, opts)));
    scores = scores.map((v, i) => (v === null ? null : v + penalties[i]));
    metrics["reward/overlong_penalty_mean"] = penalties.reduce((a, b) => a + b, 0) / Math.max(1, penalties.length);
    metrics["reward/overlong_frac"] = penalties.filter((p) => p < 0).length / Math.max(1, penalties.length);
  }
  const adv = computeGroupAdvantages(scores, groupIds, options);
  const rewardStats = shaped || overlong ? computeGroupAdvantages(rewards, groupIds, options).groups : adv.groups;
  const groups: GroupRecord[] = [];
  const updateGroups: UpdateGroup<S>[] = [];
  let offset = 0;
  rollouts.forEach((rollout, g) => {
    const n = rollout.samples.length;
    const advantages = adv.advantages.slice(offset, offset + n);
    const scored = adv.scored.slice(offset, offset + n);
    offset += n;
    const stats = rewardStats.find((s) => s.groupId === g);
    // With dynamic sampling, flat groups are dropped, and so are groups beyond a full batch (DAPO trims to it).
    const dropped = config.grpo.dynamicSampling && ((stats?.zeroVariance ?? false) || updateGroups.length >= config.grpo.groupsPerStep);
    groups.push(
      toGroupRecord(
        "train",
        g,
        tasks[g],
        rollout,
        advantages.map((a, i) => (scored[i] ? a : null)),
        dropped,
      ),
    );
    if (!dropped && scored.some(Boolean))
      updateGroups.push({ samples: rollout.samples.map((s) => s.sample), advantages, scored, recordIndex: groups.length - 1 });
  });
  return { groups, updateGroups, metrics };
}

/**
 * Writes the advantages the update trained with into the step's records: each trajectory's advantage becomes the
 * mean over its policy tokens, and each policy message gets its own turn's advantage (multi-turn credit gives
 * turns different ones), so the inspector and the adv/* metrics show what was trained, not only the outcome value.
 */
function recordAdvantagesUsed<S>(groups: GroupRecord[], updateGroups: UpdateGroup<S>[], used: AdvantagesUsed[][]): void {
  updateGroups.forEach((g, gi) => {
    const record = groups[g.recordIndex];
    g.samples.forEach((_, i) => {
      const u = used[gi]?.[i];
      const t = record?.trajectories[i];
      if (!u || !t || !g.scored[i]) return;
      t.advantage = u.trajectory;
      if (u.tokens && t.policyTokens) t.policyTokens.update = u.tokens;
      let turn = 0;
      for (const m of t.conversation) if (m.source === "policy") m.advantage = u.turns[turn++] ?? 0;
    });
  });
}

/** Groups whose scored rewards differ: the ones DAPO's dynamic sampling keeps. */
function groupsWithSignal<S>(rollouts: GroupRollout<S>[]): number {
  return rollouts.filter((r) => {
    const rewards = r.samples.map((s) => s.record.reward).filter((x): x is number => x !== null);
    return rewards.length > 1 && Math.max(...rewards) > Math.min(...rewards);
  }).length;
}

/** Per key, the mean over the groups that report it (a group may report none). */
function meanOfGroupMetrics<S>(rollouts: GroupRollout<S>[]): Record<string, number> {
  const sums = new Map<string, { total: number; n: number }>();
  for (const r of rollouts) {
    for (const [k, v] of Object.entries(r.metrics ?? {})) {
      if (!Number.isFinite(v)) continue;
      const e = sums.get(k) ?? { total: 0, n: 0 };
      e.total += v;
      e.n++;
      sums.set(k, e);
    }
  }
  return Object.fromEntries([...sums].map(([k, e]) => [k, e.total / e.n]));
}

/** Flattens shaped scores, checking their shape; an unscored sample (reward null) stays unscored whatever came back. */
function shapedScores<S>(rewards: (number | null)[], rollouts: GroupRollout<S>[], shaped: AdjustedScores): (number | null)[] {
  const sizes = rollouts.map((r) => r.samples.length);
  if (shaped.scores.length !== sizes.length || shaped.scores.some((g, i) => g.length !== sizes[i])) {
    throw new Error(
      `adjustScores returned ${shaped.scores.map((g) => g.length).join("/")} scores for groups of ${sizes.join("/")} samples`,
    );
  }
  return shaped.scores.flat().map((s, i) => (rewards[i] === null ? null : s));
}

export function toGroupRecord<S>(
  split: string,
  index: number,
  task: Task,
  rollout: GroupRollout<S>,
  advantages: (number | null)[] | null,
  dropped: boolean,
): GroupRecord {
  const scored = rollout.samples.map((s) => s.record.reward).filter((r): r is number => r !== null && Number.isFinite(r));
  const mean = scored.length ? scored.reduce((a, b) => a + b, 0) / scored.length : null;
  return {
    split,
    indexInStep: index,
    taskId: task.id,
    task: { id: task.id, split: task.split, tags: task.tags, data: task.data },
    rewardMean: mean,
    rewardStd: mean === null ? null : Math.sqrt(scored.reduce((a, r) => a + (r - mean) ** 2, 0) / scored.length),
    dropped,
    trajectories: rollout.samples.map((s, i) => ({ ...s.record, indexInGroup: i, advantage: advantages ? advantages[i] : null })),
  };
}

/** Every trajectory of several steps in a row was unscorable: fail rather than "succeed" having learned nothing. */
export class NoLearningSignalError extends Error {
  constructor(steps: number, groups: GroupRecord[]) {
    const trajectories = groups.flatMap((g) => g.trajectories);
    // The policy's own chat template raising (e.g. only once a tool result is in the conversation) is no judge's fault:
    // say what raised and what to change instead of sending the user to the judge endpoint.
    const template = trajectories.find((t) => t.error?.startsWith("ChatTemplateError:"));
    const first = template ?? trajectories.find((t) => t.error || t.reasoning);
    const why = (first?.error || first?.reasoning || "").split("\n")[0];
    const advice = template
      ? `The policy's chat template raised while rendering an episode's prompt (no judge was involved): the template in policy.model must render every kind of message the error names (tool results included); fix or replace it, check it with \`rollout-lab chat render\`, then resume the run.`
      : `Check the judge endpoint and the failed LLM calls in the trajectory inspector, then resume the run.`;
    super(
      `No learning signal: not one trajectory could be scored in ${steps} step(s) in a row (every judgement or episode failed${why ? `, e.g. "${why.slice(0, template ? 400 : 200)}"` : ""}). ${advice}`,
    );
    this.name = "NoLearningSignalError";
  }
}

const fmt = (v: number | undefined) => (v === undefined ? "n/a" : v.toFixed(3));
