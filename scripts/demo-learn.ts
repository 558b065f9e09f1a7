/**
 * npm run demo:learn — the guess-number launch preset trained through the production loop (the worker's loop and
 * pieces, trainer/loop/real/local-run.ts) in this process, printing the reward curve. `--steps N`, `--seed S`.
 */
import { findEnvironment } from "../lib/environments";
import { selectBackend } from "../trainer/backend/select";
import { episodeRewards, trainLocally } from "../trainer/loop/real/local-run";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

const preset = findEnvironment("guess-number")!.preset;
const steps = arg("steps", preset.grpo?.steps ?? 40);
const backend = await selectBackend();
console.log(`backend: ${backend.backend}${backend.nativeKernels.enabled ? " + native kernels" : ""} (${backend.reason})`);
const { sink, seconds } = await trainLocally(
  { ...preset, environment: "guess-number", seed: arg("seed", 1), grpo: { ...preset.grpo, steps } },
  {
    onStep: (r) => {
      if (r.step % 5 !== 0 && r.step !== steps - 1) return;
      const m = r.metrics;
      const pct = (k: string) => `${((m[k] ?? 0) * 100).toFixed(0).padStart(3)}%`;
      console.log(
        `step ${String(r.step).padStart(3)}  reward ${(m["reward/mean"] ?? 0).toFixed(3)}  solved ${pct("reward/solved")}  turns ${(m["env/turns_mean"] ?? 0).toFixed(2)}  ${"#".repeat(Math.round((m["reward/mean"] ?? 0) * 40))}`,
      );
    },
  },
);
const first = sink.steps.get(0)?.metrics ?? {};
const [sftFirst, sftLast] = [first["sft/loss_first"], first["sft/loss_last"]];
if (typeof sftFirst === "number" && typeof sftLast === "number")
  console.log(`SFT warm-start loss ${sftFirst.toFixed(3)} -> ${sftLast.toFixed(3)}`);
const w = Math.max(1, Math.floor(steps / 5));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
console.log(
  `mean reward: first ${w} steps ${mean(episodeRewards(sink, 0, w)).toFixed(3)}, last ${w} steps ${mean(episodeRewards(sink, steps - w, steps)).toFixed(3)} (${seconds.toFixed(0)} s)`,
);
