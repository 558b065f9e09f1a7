/**
 * npm run bench:learn — does each environment's launch preset learn on this machine? For every built-in environment
 * (or those named: `npm run bench:learn -- guess-number userrl-intention`), the preset is trained twice through the
 * production loop (trainer/loop/real/local-run.ts): with the GRPO update, and as a control with the same seed, tasks,
 * warm-start and sampling but no update. Each arm gets the same number of steps: the preset's, or fewer if
 * BENCH_LEARN_SECONDS (default 300) per arm runs out first.
 *
 * Prints one line per environment and a JSON table: mean reward of the first and last fifth of the steps (GRPO and
 * control), a one-sided permutation test on the last fifth's per-episode rewards (GRPO > control), wall time per
 * arm, and the share of episodes that ended because the context was full.
 */
import os from "node:os";
import { ENVIRONMENT_CATALOG } from "../lib/environments";
import type { RunConfigInput } from "../lib/run-config";
import { selectBackend } from "../trainer/backend/select";
import { episodeRewards, trainLocally, type LocalRun } from "../trainer/loop/real/local-run";
import { Rng } from "../trainer/policy/rng";

const BUDGET_S = Number(process.env.BENCH_LEARN_SECONDS ?? 300);
const names = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const envs = ENVIRONMENT_CATALOG.filter((e) => names.length === 0 || names.includes(e.name));

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

/** P(mean(a) − mean(b) ≥ observed) under random relabelling (one-sided, 4,000 permutations, seeded). */
function permutationP(a: number[], b: number[]): number {
  if (!a.length || !b.length) return NaN;
  const observed = mean(a) - mean(b);
  const all = [...a, ...b];
  const rng = new Rng(12345);
  let atLeast = 0;
  const N = 4000;
  for (let i = 0; i < N; i++) {
    const shuffled = rng.shuffle([...all]);
    if (mean(shuffled.slice(0, a.length)) - mean(shuffled.slice(a.length)) >= observed - 1e-12) atLeast++;
  }
  return (atLeast + 1) / (N + 1);
}

function contextFullShare(run: LocalRun): number {
  const ends = [...run.sink.steps.values()].flatMap((s) =>
    s.groups.filter((g) => g.split === "train").flatMap((g) => g.trajectories.map((t) => t.endReason)),
  );
  return ends.length ? ends.filter((e) => e === "context_full").length / ends.length : NaN;
}

/** Trains until the preset's steps or the time budget, whichever comes first; returns the run and its step count. */
async function arm(config: RunConfigInput, update: boolean, maxSteps: number): Promise<LocalRun> {
  const started = performance.now();
  let stopAt = maxSteps;
  return trainLocally(
    { ...config, grpo: { ...config.grpo, steps: maxSteps } },
    {
      update,
      onStep: (r) => {
        if ((performance.now() - started) / 1000 > BUDGET_S && stopAt === maxSteps) stopAt = r.step + 1;
      },
      stopAfter: () => stopAt,
    },
  );
}

const backend = await selectBackend();
const rows: Record<string, unknown>[] = [];
console.error(
  `backend ${backend.backend}${backend.nativeKernels.enabled ? " + native kernels" : ""}; ${os.cpus().length} cores; budget ${BUDGET_S} s per arm`,
);
for (const env of envs) {
  const config: RunConfigInput = { ...env.preset, environment: env.name, name: `bench:learn ${env.name}`, seed: 1 };
  const presetSteps = config.grpo?.steps ?? 20;
  try {
    const grpo = await arm(config, true, presetSteps);
    const steps = grpo.sink.steps.size;
    const control = await arm(config, false, steps);
    const w = Math.max(1, Math.floor(steps / 5));
    const lastG = episodeRewards(grpo.sink, steps - w, steps);
    const lastC = episodeRewards(control.sink, steps - w, steps);
    const row = {
      environment: env.name,
      steps,
      firstReward: Number(mean(episodeRewards(grpo.sink, 0, w)).toFixed(3)),
      lastReward: Number(mean(lastG).toFixed(3)),
      controlFirst: Number(mean(episodeRewards(control.sink, 0, w)).toFixed(3)),
      controlLast: Number(mean(lastC).toFixed(3)),
      pValue: Number(permutationP(lastG, lastC).toPrecision(2)),
      secondsGrpo: Math.round(grpo.seconds),
      secondsControl: Math.round(control.seconds),
      contextFull: Number(contextFullShare(grpo).toFixed(2)),
      sftLoss: [grpo.sink.steps.get(0)?.metrics["sft/loss_first"], grpo.sink.steps.get(0)?.metrics["sft/loss_last"]].map((x) =>
        typeof x === "number" ? Number(x.toFixed(2)) : null,
      ),
    };
    rows.push(row);
    console.error(
      `${env.name.padEnd(18)} steps ${String(steps).padStart(3)}  reward ${row.firstReward.toFixed(3)} → ${row.lastReward.toFixed(3)}  ` +
        `control ${row.controlFirst.toFixed(3)} → ${row.controlLast.toFixed(3)}  p ${row.pValue}  ${row.secondsGrpo} s  context_full ${(row.contextFull * 100).toFixed(0)}%`,
    );
  } catch (err) {
    rows.push({ environment: env.name, error: (err as Error).message.split("\n")[0] });
    console.error(`${env.name.padEnd(18)} failed: ${(err as Error).message.split("\n")[0]}`);
  }
}
console.log(
  JSON.stringify(
    {
      conditions: {
        backend: backend.backend,
        native: backend.nativeKernels.enabled,
        cores: os.cpus().length,
        loadavg: os.loadavg().map((x) => Number(x.toFixed(2))),
        budgetSecondsPerArm: BUDGET_S,
      },
      rows,
    },
    null,
    2,
  ),
);
