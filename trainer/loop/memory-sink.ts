/** An in-memory RunSink with the same semantics as the Postgres one (record-step.ts): loop tests and local runs without a database (local-run.ts). */
import type { LlmCallRecord } from "../../lib/conversation";
import { unscoredCauseOf } from "../../lib/unscored-cause";
import type { CheckpointRow } from "../record/checkpoint-rows";
import type { StepRecord } from "../record/step-record";
import type { RunSink } from "./types";
import type { WarmupProgress } from "../../lib/warmup-progress";

export interface MemorySink extends RunSink {
  steps: Map<number, StepRecord>;
  checkpoints: CheckpointRow[];
  events: { level: string; message: string; step?: number }[];
  phases: (string | null)[];
  /** Every warm-up progress report, in order. */
  warmups: WarmupProgress[];
  /** LLM calls of evaluation tasks cut short, kept without a trajectory. */
  unattachedCalls: LlmCallRecord[];
  /** An evaluation's task count, once set. */
  totalSteps?: number;
  /** Metric values by step for one key, in step order. */
  series(key: string): [number, number][];
}

export function createMemorySink(): MemorySink {
  const sink: MemorySink = {
    steps: new Map(),
    checkpoints: [],
    events: [],
    phases: [],
    warmups: [],
    unattachedCalls: [],
    async recordUnattachedCalls(calls) {
      sink.unattachedCalls.push(...structuredClone(calls));
    },
    async unattachedCostUsd() {
      return sink.unattachedCalls.reduce((s, c) => s + c.costUsd, 0);
    },
    async recordStep(record) {
      sink.steps.set(record.step, structuredClone(record));
    },
    async recordLateMetrics(step, metrics) {
      const recorded = sink.steps.get(step);
      if (recorded) Object.assign(recorded.metrics, metrics);
    },
    async setPhase(phase) {
      sink.phases.push(phase);
    },
    async recordWarmup(p) {
      sink.warmups.push(structuredClone(p));
    },
    async event(level, message, extra) {
      sink.events.push({ level, message, step: extra?.step });
    },
    async listCheckpoints() {
      return [...sink.checkpoints].sort((a, b) => b.step - a.step);
    },
    async recordCheckpoint(row) {
      sink.checkpoints = [...sink.checkpoints.filter((c) => c.step !== row.step), row];
    },
    async pruneCheckpoints(keepLast) {
      const sorted = await sink.listCheckpoints();
      const old = sorted.slice(Math.max(1, keepLast));
      sink.checkpoints = sorted.slice(0, Math.max(1, keepLast));
      return old;
    },
    async resetTo(step) {
      for (const s of [...sink.steps.keys()]) if (s >= step) sink.steps.delete(s);
      sink.checkpoints = sink.checkpoints.filter((c) => c.step <= step);
    },
    async recordedEvalTrials() {
      return [...sink.steps.values()].flatMap((r) =>
        r.groups
          .filter((g) => g.split === "eval")
          .flatMap((g) =>
            g.trajectories.map((t) => ({
              step: r.step,
              taskId: g.taskId,
              reward: t.reward,
              components: t.components,
              costUsd: t.llmCalls.reduce((s, c) => s + c.costUsd, 0),
              unscoredCause: unscoredCauseOf(t),
            })),
          ),
      );
    },
    async setTotalSteps(steps) {
      sink.totalSteps = steps;
    },
    series(key) {
      return [...sink.steps.values()]
        .sort((a, b) => a.step - b.step)
        .filter((r) => typeof r.metrics[key] === "number")
        .map((r) => [r.step, r.metrics[key] as number]);
    },
  };
  return sink;
}
