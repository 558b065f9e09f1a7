/**
 * An evaluation run, top to bottom (the evaluation counterpart of train-run.ts; nothing is trained):
 *
 *   resume after the tasks already recorded (a crashed or stopped evaluation continues, it does not start over)
 *   for each selected task, several at once (eval.concurrency episodes in flight):
 *     play k trials          the policy: an endpoint, the gold script, a checkpoint or the configured model
 *     record                 one step per task, in task order, as soon as it and every task before it are done:
 *                            its group of k trajectories (with every policy / simulator / judge call), and the
 *                            scores over every task so far (lib/pass-k.ts: pass@1, pass^1..k, mean reward, cost)
 *   stop                     cancel / shutdown / lost lease as a training run does; at the cost ceiling no new task
 *                            starts and no new policy call is sent, calls in flight finish, and the run ends with the
 *                            reason; tasks cut short are not recorded (a resume plays them again) but their LLM calls
 *                            are, without a trajectory: they were made and billed, so the cost counts them
 *
 * Step i is task i, so the run's progress is tasks done out of tasks selected.
 */
import { setMaxListeners } from "node:events";
import { evalSummaryMetrics, summariseTrials, type EvalTrial } from "../../lib/pass-k";
import type { RunConfig } from "../../lib/run-config";
import { successRuleFor } from "../../lib/success-rules";
import { INFRASTRUCTURE_CAUSES, UNSCORED_CAUSE_TEXT, unscoredCauseOf } from "../../lib/unscored-cause";
import type { Task } from "../envs/types";
import { mixSeed } from "../loop/task-order";
import { toGroupRecord } from "../loop/train-run";
import type { GroupRequest, GroupRollout, RunSink, StopControl, TrainOutcome } from "../loop/types";
import { summariseStep } from "../record/summarise-step";
import type { EventRecord, GroupRecord } from "../record/step-record";
import { CostCeilingReached, type CostBudget } from "./cost-budget";

export interface EvalDeps {
  /** The selected tasks; step i plays tasks[i]. */
  tasks: Task[];
  /** Plays `req.size` trials of `req.task`; stops when `req.signal` aborts. */
  runGroup(req: GroupRequest): Promise<GroupRollout<unknown>>;
  /** Fed with every LLM call's cost by whoever makes the calls; its ceiling stops the run. */
  budget?: CostBudget;
  /** Who plays, in words (events). */
  policyLabel: string;
  /** Notes about the task selection, recorded as events when the evaluation starts. */
  notes?: string[];
  /** The selection in words true of it (select-tasks.ts), stored with the task ids for leaderboards and the run page. */
  selectionLabel?: string;
}

/** Salt of evaluation seeds (the training loop uses 1 for train and 2 for its own evaluations). */
const EVAL_SEED_SALT = 3;

const trialsOf = (g: GroupRecord): EvalTrial[] =>
  g.trajectories.map((t) => ({
    taskId: g.taskId,
    reward: t.reward,
    components: t.components,
    costUsd: t.llmCalls.reduce((s, c) => s + c.costUsd, 0),
    unscoredCause: unscoredCauseOf(t),
  }));

export async function evalRun(config: RunConfig, deps: EvalDeps, sink: RunSink, control: StopControl): Promise<TrainOutcome> {
  const settings = config.eval;
  if (!settings) throw new Error("evalRun needs a config with an eval section.");
  const { tasks } = deps;
  if (tasks.length === 0) throw new Error("No task to evaluate: the selection is empty.");
  const k = settings.k;

  // --- resume after the recorded tasks (only if they are the same tasks in the same order) -----------------------
  await sink.setTotalSteps?.(tasks.length);
  let recorded = (await sink.recordedEvalTrials?.()) ?? [];
  const mismatch = recorded.find((t) => tasks[t.step]?.id !== t.taskId);
  if (mismatch) {
    await sink.event(
      "warn",
      `The recorded trials are of other tasks (step ${mismatch.step} was ${mismatch.taskId}); evaluating from the start.`,
    );
    recorded = [];
  }
  const start = recorded.length ? Math.max(...recorded.map((t) => t.step)) + 1 : 0;
  await sink.resetTo(start);
  const trials: EvalTrial[] = recorded.filter((t) => t.step < start);
  // Calls of tasks an earlier attempt cut short were billed too.
  const priorUnattachedUsd = (await sink.unattachedCostUsd?.()) ?? 0;
  deps.budget?.add(trials.reduce((s, t) => s + (t.costUsd ?? 0), 0) + priorUnattachedUsd);
  for (const note of deps.notes ?? []) await sink.event("info", note);
  await sink.event(
    "info",
    start === 0
      ? `Evaluating ${tasks.length} task(s) × ${k} trial(s) with ${deps.policyLabel}.`
      : `Resuming the evaluation at task ${start + 1} of ${tasks.length}.`,
    // The tasks actually selected: leaderboards compare runs on the same tasks (server/services/evaluations.ts).
    { step: start, data: { evalSelection: { taskIds: tasks.map((t) => t.id), label: deps.selectionLabel ?? null } } },
  );

  // The worker's ways of stopping (cancel, shutdown, lost lease) abort everything in flight. The cost ceiling does
  // not: it starts no new task and refuses new policy calls (eval-deps.ts), but a call already sent finishes and is
  // recorded, as the endpoint bills it either way.
  const stop = new AbortController();
  // Every episode and HTTP request listens to it: hundreds of listeners are expected.
  setMaxListeners(0, stop.signal);
  const abortWith = (reason: unknown) => !stop.signal.aborted && stop.abort(reason);
  if (control.signal.aborted) abortWith(control.signal.reason);
  control.signal.addEventListener("abort", () => abortWith(control.signal.reason), { once: true });
  const halted = () => stop.signal.aborted || (deps.budget?.exceeded ?? false);
  /** Tasks played (or cut short) but never recorded: their calls are kept without a trajectory. */
  const unrecorded: GroupRollout<unknown>[] = [];

  // --- play, record in task order -------------------------------------------------------------------------------
  await sink.setPhase("eval");
  const done = new Map<number, GroupRollout<unknown>>();
  let nextToRecord = start;
  let recording: Promise<void> = Promise.resolve();
  /** Every call of the tasks not recorded, kept without a trajectory; the last step's eval/cost_usd then counts them. */
  const keepUnrecordedCalls = async (rollouts: GroupRollout<unknown>[]) => {
    const calls = rollouts.flatMap((r) => r.samples.flatMap((s) => s.record.llmCalls));
    if (calls.length === 0) return;
    await sink.recordUnattachedCalls?.(calls);
    if (nextToRecord > 0) {
      const recordedCost = trials.reduce((sum, t) => sum + (t.costUsd ?? 0), 0);
      const unattached = (await sink.unattachedCostUsd?.()) ?? 0;
      await sink.recordLateMetrics?.(nextToRecord - 1, { "eval/cost_usd": recordedCost + unattached });
    }
  };
  const recordReady = async (): Promise<void> => {
    for (let rollout = done.get(nextToRecord); rollout; rollout = done.get(nextToRecord)) {
      const step = nextToRecord;
      done.delete(step);
      const group = toGroupRecord("eval", 0, tasks[step], rollout, null, false);
      trials.push(...trialsOf(group));
      const summary = summariseTrials(trials, successRuleFor(config.environment), priorUnattachedUsd);
      const task = summary.perTask.find((t) => t.taskId === tasks[step].id);
      const events: EventRecord[] = [];
      const last = step === tasks.length - 1;
      if (last) {
        events.push({
          level: "info",
          message: `Evaluation finished: pass@1 ${fmt(summary.passHat[1])}, pass^${summary.maxK} ${fmt(summary.passHat[summary.maxK])}, mean reward ${fmt(summary.rewardMean)} over ${summary.tasks} task(s) × ${k}; cost $${summary.costUsd.toFixed(4)}${summary.unscored ? `; ${summary.unscored} trial(s) could not be scored and are left out` : ""}.`,
        });
      }
      await sink.recordStep({
        step,
        groups: [group],
        metrics: {
          ...summariseStep({ groups: [group] }),
          ...evalSummaryMetrics(summary),
          ...(task && task.trials ? { "eval/task_success_rate": task.successes / task.trials } : {}),
        },
        events,
        latestReward: summary.rewardMean,
        phase: last ? null : "eval",
      });
      nextToRecord = step + 1;
    }
  };

  let cursor = start;
  const playTasks = async (): Promise<void> => {
    while (cursor < tasks.length && !halted()) {
      const i = cursor++;
      const req: GroupRequest = {
        task: tasks[i],
        step: i,
        split: "eval",
        groupIndex: 0,
        size: k,
        seed: mixSeed(config.seed, i, EVAL_SEED_SALT, 0),
        signal: stop.signal,
      };
      let rollout: GroupRollout<unknown>;
      try {
        rollout = await deps.runGroup(req);
      } catch (err) {
        if (stop.signal.aborted) return;
        throw err;
      }
      // Trials cut short by a stop or the ceiling end "normally" (as errors): never record them as scores.
      if (stop.signal.aborted || rollout.samples.some((s) => cutByCeiling(s.record.error))) {
        unrecorded.push(rollout);
        return;
      }
      done.set(i, rollout);
      recording = recording.then(recordReady);
      await recording;
    }
  };
  const lanes = Math.max(1, Math.min(tasks.length - start, Math.ceil(settings.concurrency / k)));
  try {
    await Promise.all(Array.from({ length: lanes }, playTasks));
  } catch (err) {
    abortWith(err);
    throw err;
  } finally {
    await recording.catch(() => {});
  }
  await recording;
  await keepUnrecordedCalls([...unrecorded, ...done.values()]);

  const reason = control.reason();
  if (reason) return { kind: "stopped", reason, steps: nextToRecord };
  if (deps.budget?.exceeded && nextToRecord < tasks.length) {
    return {
      kind: "limit",
      steps: nextToRecord,
      message: `${deps.budget.reason()} ${nextToRecord} of ${tasks.length} task(s) were evaluated; the scores cover those. Resume with a higher ceiling by cloning the run.`,
    };
  }
  // Nothing was measured when every trial failed on infrastructure: that is a failed run, not a score of "n/a".
  if (trials.length > 0 && trials.every((t) => t.unscoredCause && INFRASTRUCTURE_CAUSES.has(t.unscoredCause))) {
    throw new EvaluationMeasuredNothing(trials, deps.policyLabel);
  }
  return { kind: "completed", steps: tasks.length };
}

/** Every trial of an evaluation failed on infrastructure: the run fails with the cause (exit 5 from the CLI). */
export class EvaluationMeasuredNothing extends Error {
  constructor(trials: EvalTrial[], policy: string) {
    const causes = [...new Set(trials.map((t) => t.unscoredCause!))].map((c) => UNSCORED_CAUSE_TEXT[c]);
    super(
      `All ${trials.length} trial(s) failed on infrastructure, so nothing was scored: ${causes.join("; ")}. ` +
        `Check that ${policy} answers (its URL, model and key) and the judge endpoint; each trajectory shows its error.`,
    );
    this.name = "EvaluationMeasuredNothing";
  }
}

/** A trial ended by the ceiling's refusal of its next policy call (cost-budget.ts). */
const cutByCeiling = (error: string | null | undefined) => (error ?? "").startsWith(`${CostCeilingReached.name}:`);

const fmt = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? "n/a" : v.toFixed(3));
