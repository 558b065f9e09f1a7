/**
 * A run trained in this process without a database: the production loop (trainRun) with the production pieces
 * (createRealDeps: environment, TF.js policy, SFT warm-start, GRPO update, checkpoints) and an in-memory sink.
 * `npm run demo:learn`, `npm run bench:learn` and the learning test use it, so the proof that runs learn goes
 * through exactly the code a worker runs.
 *
 * `update: false` is the control arm of a learning experiment: the same seed, tasks, warm-start and sampling, but the
 * GRPO update is skipped, so any difference in reward is the update's doing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseRunConfig, type RunConfigInput } from "../../../lib/run-config";
import type { StepRecord } from "../../record/step-record";
import { createMemorySink, type MemorySink } from "../memory-sink";
import { trainRun } from "../train-run";
import type { TrainOutcome } from "../types";
import { createRealDeps } from "./real-deps";

export interface LocalRunOptions {
  /** Called after each recorded step (the demo prints it). */
  onStep?: (record: StepRecord) => void;
  /** false: the no-update control (default true). */
  update?: boolean;
  /** Stop (as a shutdown, at a step boundary) once this many steps are recorded; read before each step. */
  stopAfter?: () => number;
}

export interface LocalRun {
  outcome: TrainOutcome;
  sink: MemorySink;
  seconds: number;
}

export async function trainLocally(input: RunConfigInput, opts: LocalRunOptions = {}): Promise<LocalRun> {
  const config = parseRunConfig(input);
  const checkpointDir = mkdtempSync(path.join(os.tmpdir(), "rollout-lab-local-"));
  const t0 = performance.now();
  const real = await createRealDeps(config, checkpointDir);
  try {
    const deps = opts.update === false ? { ...real.deps, update: async () => ({ metrics: {} }) } : real.deps;
    const sink = createMemorySink();
    const record = sink.recordStep;
    sink.recordStep = async (r) => {
      await record(r);
      opts.onStep?.(r);
    };
    const stopAfter = opts.stopAfter;
    const reason = () => (stopAfter && sink.steps.size >= stopAfter() ? ("shutdown" as const) : null);
    const outcome = await trainRun(config, deps, sink, { signal: new AbortController().signal, reason });
    return { outcome, sink, seconds: (performance.now() - t0) / 1000 };
  } finally {
    real.dispose();
    rmSync(checkpointDir, { recursive: true, force: true });
  }
}

/** Per-episode rewards of the train groups of steps [from, to), in step order (unscored episodes left out). */
export function episodeRewards(sink: MemorySink, from: number, to: number): number[] {
  return [...sink.steps.values()]
    .filter((s) => s.step >= from && s.step < to)
    .sort((a, b) => a.step - b.step)
    .flatMap((s) => s.groups.filter((g) => g.split === "train").flatMap((g) => g.trajectories.map((t) => t.reward)))
    .filter((r): r is number => r !== null);
}
