/**
 * Hugging Face TRL's GRPOTrainer (and any `transformers.Trainer`): every checkpoint folder holds a
 * `trainer_state.json` whose `log_history` has one entry per logging step — `{"step", "epoch", "loss", "grad_norm",
 * "learning_rate", "reward", "reward_std", "kl", "entropy", "completions/mean_length", "rewards/<function>/mean",
 * …}` — plus a last summary entry (`train_runtime`, `train_loss`, …). An import is the run's curves: metrics under Rollout Lab's names where
 * one exists (reward → reward/mean, learning_rate → lr, completions/mean_length → response/length_mean, a reward
 * function's mean → reward/<function>), TRL's own name otherwise. A folder of checkpoints imports the
 * `trainer_state.json` that went furthest.
 *
 * Samples: with `log_completions=True` (TRL since Jan 2026) every logging step writes
 * `completions/completions_<step>.parquet` — one row per completion of the last generation batch with `step`,
 * `prompt` (already rendered by the chat template), `completion`, one column per reward function (NaN where a
 * function does not apply), any extra columns reward functions logged, and `advantage`. Each row becomes a sample:
 * the reward functions are its components (the functions are the `rewards/<name>/mean` keys of the log history;
 * without it, every numeric column but step and advantage), its reward their sum (TRL's total with the default
 * `reward_weights` of 1; the files do not record other weights), and the completions of one prompt at one step
 * form a group (`num_generations`).
 */
import type { TrajectoryInput } from "../ingest";
import { jsonLines, rewardCurve, type ImportFile, type ImportedRun, type ImportProblem } from "./types";
import { promptKey } from "./verl";

/** Hugging Face's 1-based global step as Rollout Lab's 0-based step. */
const fromHfStep = (step: number) => Math.max(0, step - 1);

const COMPLETIONS_FILE = /(^|\/)completions_(\d+)\.parquet$/;

/** TRL's metric names that have a Rollout Lab counterpart. */
const RENAMED: Record<string, string> = {
  reward: "reward/mean",
  reward_std: "reward/std",
  learning_rate: "lr",
  "completions/mean_length": "response/length_mean",
  "completions/max_length": "response/length_max",
  "completions/min_length": "response/length_min",
  frac_reward_zero_std: "reward/zero_variance_group_frac",
};

/** Not curves: bookkeeping TRL logs with every entry. */
const SKIPPED = new Set(["step", "epoch", "total_flos"]);

export function trlMetricName(name: string): string {
  const fn = /^rewards\/(.+)\/mean$/.exec(name);
  if (fn) return `reward/${fn[1]}`;
  return RENAMED[name] ?? name;
}

interface TrainerState {
  global_step?: unknown;
  max_steps?: unknown;
  log_history?: unknown;
  [key: string]: unknown;
}

function readState(file: ImportFile, problems: ImportProblem[]): TrainerState | null {
  try {
    const value = JSON.parse(file.text) as unknown;
    if (value && typeof value === "object" && !Array.isArray(value) && Array.isArray((value as TrainerState).log_history))
      return value as TrainerState;
    problems.push({ file: file.path, message: 'not a trainer_state.json (no "log_history" list)' });
  } catch (err) {
    problems.push({ file: file.path, message: `not valid JSON (${(err as Error).message})` });
  }
  return null;
}

export function importTrl(files: ImportFile[], opts: { name: string }): ImportedRun {
  const problems: ImportProblem[] = [];
  const curves = importCurves(files, opts, problems);
  const rewardFunctions = new Set(
    curves.steps
      .flatMap((s) => Object.keys(s.metrics))
      .filter((k) => k.startsWith("reward/") && !["reward/mean", "reward/std", "reward/zero_variance_group_frac"].includes(k))
      .map((k) => k.slice("reward/".length)),
  );
  const trajectories = importCompletions(
    files.filter((f) => COMPLETIONS_FILE.test(f.path)),
    rewardFunctions,
    problems,
  );
  if (curves.steps.length === 0 && trajectories.length > 0) {
    // Completions without a trainer_state.json: the curves are the samples' mean reward per step.
    problems.splice(0, problems.length, ...problems.filter((p) => !p.message.startsWith("no trainer_state.json")));
    curves.steps = rewardCurve(trajectories);
  }
  return { ...curves, trajectories, problems };
}

function importCompletions(files: ImportFile[], rewardFunctions: Set<string>, problems: ImportProblem[]): TrajectoryInput[] {
  const out: TrajectoryInput[] = [];
  for (const file of files) {
    if (file.unreadable) {
      problems.push({ file: file.path, message: file.unreadable });
      continue;
    }
    for (const { line, value: row } of jsonLines(file, problems)) {
      if (
        typeof row.step !== "number" ||
        !Number.isInteger(row.step) ||
        typeof row.prompt !== "string" ||
        typeof row.completion !== "string"
      ) {
        problems.push({ file: file.path, line, message: `row ${line} needs an integer "step" and text "prompt" and "completion"` });
        continue;
      }
      const isReward = (k: string) =>
        rewardFunctions.size ? rewardFunctions.has(k) : !["step", "prompt", "completion", "advantage"].includes(k);
      const components: Record<string, number> = {};
      for (const [k, v] of Object.entries(row)) if (isReward(k) && typeof v === "number" && Number.isFinite(v)) components[k] = v;
      const rewards = Object.values(components);
      const key = promptKey(row.prompt);
      out.push({
        id: `trl-${row.step}-${path(file)}-${line}`,
        step: fromHfStep(row.step),
        group: key,
        taskId: key,
        conversation: [
          { role: "user", content: row.prompt },
          { role: "assistant", content: row.completion },
        ],
        reward: rewards.length ? rewards.reduce((a, b) => a + b, 0) : null,
        rewardComponents: components,
        ...(typeof row.advantage === "number" && Number.isFinite(row.advantage) ? { advantage: row.advantage } : {}),
      });
    }
  }
  return out;
}

const path = (f: ImportFile) => f.path.replace(/[^A-Za-z0-9_.-]+/g, "_");

function importCurves(
  files: ImportFile[],
  opts: { name: string },
  problems: ImportProblem[],
): Omit<ImportedRun, "trajectories" | "problems"> {
  const states = files
    .filter((f) => /(^|\/)trainer_state\.json$/.test(f.path))
    .map((f) => ({ file: f, state: readState(f, problems) }))
    .filter((s): s is { file: ImportFile; state: TrainerState } => s.state !== null);
  if (states.length === 0) {
    if (problems.length === 0)
      problems.push({
        file: files[0]?.path ?? "(none)",
        message: "no trainer_state.json: point at a TRL output_dir or one of its checkpoint-* folders",
      });
    return { run: { name: opts.name, source: "trl", environment: "trl", config: {} }, steps: [] };
  }
  // The checkpoint that went furthest holds the whole history so far.
  const { file, state } = states.reduce((a, b) => (Number(b.state.global_step ?? 0) > Number(a.state.global_step ?? 0) ? b : a));
  const steps: ImportedRun["steps"] = [];
  const summary: Record<string, unknown> = {};
  (state.log_history as unknown[]).forEach((entry, i) => {
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) {
      problems.push({ file: file.path, message: `log_history[${i}] is not an object` });
      return;
    }
    const e = entry as Record<string, unknown>;
    // The closing summary (train_runtime, train_loss, …) describes the run, not a step.
    if ("train_runtime" in e) {
      Object.assign(summary, e);
      return;
    }
    if (typeof e.step !== "number" || !Number.isInteger(e.step) || e.step < 0) {
      problems.push({ file: file.path, message: `log_history[${i}] has no integer "step"` });
      return;
    }
    const metrics: Record<string, number> = {};
    for (const [k, v] of Object.entries(e))
      if (!SKIPPED.has(k) && typeof v === "number" && Number.isFinite(v)) metrics[trlMetricName(k)] = v;
    if (Object.keys(metrics).length) steps.push({ step: fromHfStep(e.step), metrics });
  });
  // TRL may log evaluation and training entries at the same step: one record per step, later entries merged in.
  const byStep = new Map<number, Record<string, number>>();
  for (const s of steps) byStep.set(s.step, { ...(byStep.get(s.step) ?? {}), ...s.metrics });
  const config: Record<string, unknown> = { importedFrom: `TRL ${file.path}` };
  for (const k of ["global_step", "max_steps", "num_train_epochs", "logging_steps", "train_batch_size", "eval_steps", "save_steps"])
    if (state[k] !== undefined) config[k] = state[k];
  if (Object.keys(summary).length) config.summary = summary;
  const maxSteps = Number(state.max_steps);
  return {
    run: {
      name: opts.name,
      source: "trl",
      environment: "trl",
      config,
      ...(Number.isInteger(maxSteps) && maxSteps > 0 ? { totalSteps: maxSteps } : {}),
    },
    steps: [...byStep.entries()].sort(([a], [b]) => a - b).map(([step, metrics]) => ({ step, metrics })),
  };
}
