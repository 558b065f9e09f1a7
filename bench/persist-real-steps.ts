/**
 * bench:persist's real steps: each named launch preset trains two steps in memory through the production loop,
 * then each step's record is written to PostgreSQL with recordStep (into a run of its own) and the write's time is
 * set against the step's measured time.
 */
import type { PrismaClient } from "../generated/prisma/client";
import { findEnvironment } from "../lib/environments";
import type { StepRecord } from "../trainer/record/step-record";
import { recordStep } from "../trainer/record/record-step";
import { insertQueuedRun } from "../trainer/record/testing/make-run";
import { trainLocally } from "../trainer/loop/real/local-run";

const STEPS = 2;

const trajectoriesOf = (r: StepRecord) => r.groups.flatMap((g) => g.trajectories);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** A step's own time: rollout (episodes and their rewards) + update + checkpoint, as the loop measured them. */
const stepSeconds = (r: StepRecord) =>
  ["time/rollout_s", "time/update_s", "time/checkpoint_s"].reduce((s, k) => s + (r.metrics[k] ?? 0), 0);

export async function realStepShares(db: PrismaClient, presets: string[]) {
  const rows = [];
  for (const name of presets) {
    const info = findEnvironment(name);
    if (!info) throw new Error(`BENCH_PERSIST_PRESETS: unknown environment "${name}"`);
    const records: StepRecord[] = [];
    await trainLocally({ ...info.preset, environment: name }, { onStep: (r) => records.push(r), stopAfter: () => STEPS });
    const runId = await insertQueuedRun(db);
    for (const record of records.filter((r) => r.groups.length > 0)) {
      // Where the write's time goes: milliseconds from the previous stage to each stage of recordStep's transaction.
      const stages: Record<string, number> = {};
      const t0 = performance.now();
      let last = t0;
      await recordStep(db, runId, record, {
        workerId: undefined,
        onStage: (stage) => {
          const now = performance.now();
          stages[stage] = Number((now - last).toFixed(1));
          last = now;
        },
      });
      const end = performance.now();
      stages["events+commit"] = Number((end - last).toFixed(1));
      const recordS = (end - t0) / 1000;
      const stepS = stepSeconds(record);
      rows.push({
        environment: name,
        step: record.step,
        trajectories: record.groups.reduce((s, g) => s + g.trajectories.length, 0),
        llmCalls: record.groups.reduce((s, g) => s + g.trajectories.reduce((n, t) => n + t.llmCalls.length, 0), 0),
        // The policy view's record (lib/policy-tokens.ts): tokens per trajectory and their JSON, which the step writes too.
        policyTokensPerTrajectory: Math.round(mean(trajectoriesOf(record).map((t) => t.policyTokens?.ids.length ?? 0))),
        policyTokensKbPerTrajectory: Number(
          (mean(trajectoriesOf(record).map((t) => JSON.stringify(t.policyTokens ?? null).length)) / 1024).toFixed(1),
        ),
        stepSeconds: Number(stepS.toFixed(3)),
        recordSeconds: Number(recordS.toFixed(3)),
        shareOfStep: Number((recordS / (stepS + recordS)).toFixed(4)),
        stageMs: stages,
      });
    }
  }
  return rows;
}
