/**
 * What one training step leaves behind, in the shape `recordStep` writes in a single transaction. The loop builds
 * one `StepRecord` per step (train groups, optional eval groups, metrics, events); nothing of a step reaches the
 * database before all of it is ready, so the dashboard never shows half a step.
 */
import type { ConversationMessage, LlmCallRecord, TrajectoryStatus } from "../../lib/conversation";
import type { PolicyTokens } from "../../lib/policy-tokens";

export interface TrajectoryRecord {
  indexInGroup: number;
  /** null = unscorable (judge failed); stored as NULL, never as 0. */
  reward: number | null;
  components: Record<string, number>;
  /** Sequence-level advantage; per-turn advantages live on the conversation's policy messages. */
  advantage: number | null;
  reasoning: string | null;
  status: TrajectoryStatus;
  endReason: string | null;
  error: string | null;
  numTurns: number;
  promptTokens: number;
  responseTokens: number;
  conversation: ConversationMessage[];
  finalState?: unknown;
  expectedState?: unknown;
  /** Every simulator / judge call of this episode (one per attempt); linked to the trajectory and its turn. */
  llmCalls: LlmCallRecord[];
  /** The token sequence the policy saw and was trained on (policies that sample tokens; absent for scripted ones). */
  policyTokens?: PolicyTokens;
}

export interface GroupRecord {
  /** "train", or "eval" for evaluation groups recorded at the same step. */
  split: string;
  indexInStep: number;
  taskId: string;
  task?: unknown;
  rewardMean: number | null;
  rewardStd: number | null;
  /** DAPO dynamic sampling dropped this group (zero reward variance). */
  dropped: boolean;
  trajectories: TrajectoryRecord[];
}

export type EventLevel = "debug" | "info" | "warn" | "error";

export interface EventRecord {
  level: EventLevel;
  message: string;
  data?: Record<string, unknown>;
}

export interface StepRecord {
  /** 0-based index of the step; after recording, Run.step becomes step + 1 (completed steps). */
  step: number;
  groups: GroupRecord[];
  /** Stable slash-named keys (see summarise-step.ts); non-finite values are skipped so charts show gaps. */
  metrics: Record<string, number | null | undefined>;
  events?: EventRecord[];
  /** Written to Run.latestReward; defaults to metrics["reward/mean"]. */
  latestReward?: number | null;
  /** Run.phase after this step (e.g. "checkpoint", "rollout"); defaults to "rollout". */
  phase?: string | null;
}
