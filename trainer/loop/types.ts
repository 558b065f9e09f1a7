/**
 * The seams of the training loop. `trainRun` (train-run.ts) only sees these interfaces, so it can be tested with
 * deterministic fakes and wired to the real TF.js policy / environments / updater in trainer/main.ts.
 */
import type { Task } from "../envs/types";
import type { CheckpointRow } from "../record/checkpoint-rows";
import type { EventLevel, EventRecord, StepRecord, TrajectoryRecord } from "../record/step-record";
import type { PolicyTokenUpdate } from "../../lib/policy-tokens";
import type { EvalTrial } from "../../lib/pass-k";
import type { WarmupProgress } from "../../lib/warmup-progress";
import type { LlmCallRecord } from "../../lib/conversation";

/** One sampled episode: what gets recorded, plus the opaque policy-side data the update needs (tokens, masks…). */
export interface RolloutSample<S> {
  /** `indexInGroup` and `advantage` are filled in by the loop. */
  record: Omit<TrajectoryRecord, "indexInGroup" | "advantage">;
  sample: S;
}

export interface GroupRequest {
  task: Task;
  step: number;
  split: "train" | "eval";
  /** Position of the group in its step. */
  groupIndex: number;
  size: number;
  /** Derived from (run seed, step, split, group): a resumed step samples with the same seeds. */
  seed: number;
  /** Aborted when the worker loses its lease: stop at once, nothing will be recorded. */
  signal: AbortSignal;
  /** Index of the curriculum stage this step trains in (its environment options apply); absent without stages. */
  stage?: number;
}

export interface GroupRollout<S> {
  samples: RolloutSample<S>[];
  /** Seconds spent scoring (judge / reward model) inside the rollout, reported as time/reward_s. */
  rewardSeconds?: number;
  /** Rollout-side metrics of this group (e.g. rollout/policy_batch_mean); the step records their mean over train groups. */
  metrics?: Record<string, number>;
}

export interface UpdateGroup<S> {
  samples: S[];
  /** Group-relative advantage per sample (0 for unscorable ones, which carry no gradient). */
  advantages: number[];
  scored: boolean[];
  /** Index of this group's record in the step's train groups (where the advantages the update used are written). */
  recordIndex: number;
}

/**
 * The advantages an update actually trained each sample with: per policy turn (multi-turn credit gives each turn its
 * own), and their mean over the sample's policy tokens. Aligned with UpdateGroup.samples.
 */
export interface AdvantagesUsed {
  trajectory: number;
  turns: number[];
  /** Per token: the advantage, and what the update's last pass did (joins the record's policyTokens). */
  tokens?: PolicyTokenUpdate;
}

/** One train group as reward shaping sees it: the policy-side samples and the environment's rewards. */
export interface ScoreGroup<S> {
  samples: S[];
  rewards: (number | null)[];
}

export interface AdjustedScores {
  /** Per group, per sample: the score its advantage is computed from. */
  scores: (number | null)[][];
  /** Recorded with the step under dashboard keys (e.g. "kl/in_reward_mean"). */
  metrics: Record<string, number>;
}

/** Called as a warm-start stage progresses (its steps, loss and ETA: lib/warmup-progress.ts). */
export type WarmupReporter = (progress: WarmupProgress) => Promise<void>;

/** What a warm-start stage did; recorded with step 0 (the first step it precedes). */
export interface WarmStartReport {
  metrics: Record<string, number>;
  events: EventRecord[];
}

export interface SavedCheckpoint {
  location: string;
  sizeBytes: number;
}

export interface LoopDeps<S> {
  /** Training tasks (the loop orders them with task-order.ts unless `sampleTasks` is given). */
  trainTasks: Task[];
  /** Held-out tasks for evaluation (at most evaluation.maxTasks are used). */
  evalTasks: Task[];
  sampleTasks?: (step: number) => Task[];
  runGroup(req: GroupRequest): Promise<GroupRollout<S>>;
  /**
   * Optional reward shaping between scoring and advantages, e.g. KL in the reward (verl `use_kl_in_reward`).
   * Called once per step with the train groups; the loop keeps a null reward null whatever comes back. Only the
   * advantages see these scores: trajectories keep the environment's reward.
   */
  adjustScores?(groups: ScoreGroup<S>[], step: number): Promise<AdjustedScores>;
  /**
   * Optional stage before the first step of a fresh run, e.g. the SFT warm-start. Never called when the run resumes
   * from a checkpoint (its weights already contain the stage). Should return early once `control.reason()` is set.
   */
  warmStart?(control: StopControl, report?: WarmupReporter): Promise<WarmStartReport>;
  /**
   * One policy update on the step's kept groups; returns metrics under dashboard keys ("loss/policy", "kl"…). Stops
   * with the abort reason when `signal` fires (cancel, shutdown, lease lost), possibly after some optimizer steps.
   */
  update(
    groups: UpdateGroup<S>[],
    step: number,
    signal: AbortSignal,
  ): Promise<{ metrics: Record<string, number>; advantagesUsed?: AdvantagesUsed[][] }>;
  /** Persist the policy (and optimizer) after `completedSteps` steps; resolve only once the files are complete. */
  saveCheckpoint(completedSteps: number, state: { dataCursor: number }): Promise<SavedCheckpoint>;
  /** Restore the policy from a checkpoint; throw if it is incomplete or corrupt (the loop tries an older one). */
  loadCheckpoint(location: string): Promise<void>;
  deleteCheckpoint?(location: string): Promise<void>;
}

/** Where the loop's results go: Postgres in production (prisma-sink.ts), memory in unit tests. */
export interface RunSink {
  recordStep(record: StepRecord): Promise<void>;
  /**
   * Metrics of an already recorded step that can only be known after recording it (time/record_s, the recording's
   * own duration). Written outside the step's transaction; losing them in a crash loses nothing else.
   */
  recordLateMetrics?(step: number, metrics: Record<string, number>): Promise<void>;
  setPhase(phase: string | null): Promise<void>;
  /** The warm-up's progress, kept as one run event that each call updates (never one per step). */
  recordWarmup?(progress: WarmupProgress): Promise<void>;
  event(level: EventLevel, message: string, extra?: { step?: number; data?: Record<string, unknown> }): Promise<void>;
  listCheckpoints(): Promise<CheckpointRow[]>;
  recordCheckpoint(row: CheckpointRow): Promise<void>;
  /** Keep the newest `keepLast`; returns removed rows (their files are deleted by the loop). */
  pruneCheckpoints(keepLast: number): Promise<CheckpointRow[]>;
  /** Drop recorded steps ≥ step and checkpoints after it: the run resumes from there. */
  resetTo(step: number): Promise<void>;
  /** Evaluation runs: the trials recorded so far (a resumed evaluation continues after them). */
  recordedEvalTrials?(): Promise<RecordedEvalTrial[]>;
  /** Evaluation runs: the run's step count becomes the number of tasks once the worker has selected them. */
  setTotalSteps?(steps: number): Promise<void>;
  /**
   * Evaluation runs: LLM calls of tasks cut short (cost ceiling, cancel), kept without a trajectory — they were made
   * and billed — so the run's cost counts every call.
   */
  recordUnattachedCalls?(calls: readonly LlmCallRecord[]): Promise<void>;
  /** Evaluation runs: what the calls recorded without a trajectory cost (a resumed run's ceiling counts them). */
  unattachedCostUsd?(): Promise<number>;
}

/** One recorded trial of an evaluation run (its step is the task's position). */
export interface RecordedEvalTrial extends EvalTrial {
  step: number;
}

export type StopReason = "shutdown" | "cancel" | "lease_lost";

/**
 * Why and when the run stops. `reason()` is polled at step boundaries; `signal` is aborted as soon as a reason
 * appears (cancel, shutdown or a lost lease), so rollouts, LLM calls and the update stop mid-step.
 */
export interface StopControl {
  reason(): StopReason | null;
  signal: AbortSignal;
}

export type TrainOutcome =
  | { kind: "completed"; steps: number }
  | { kind: "stopped"; reason: StopReason; steps: number }
  /** A limit the config set stopped the run (an evaluation's cost ceiling): it ends cancelled with `message`. */
  | { kind: "limit"; steps: number; message: string };
