/**
 * Hugging Face TRL's GRPOTrainer (and any `transformers.Trainer`): every checkpoint folder holds a
 * `trainer_state.json` whose `log_history` has one entry per logging step — `{"step", "epoch", "loss", "grad_norm",
 * "learning_rate", "reward", "reward_std", "kl", "entropy", "completions/mean_length", "rewards/<function>/mean",
 * …}` — plus a last summary entry (`train_runtime`, `train_loss`, …). An import is the run's curves: metrics under Rollout Lab's names where
 * one exists (reward → reward/mean, learning_rate → lr, completions/mean_length → response/length_mean, a reward
 * function's mean → reward/<function>), TRL's own name otherwise. A folder of checkpoints imports the
 * `trainer_state.json` that went furthest. Samples are not read: TRL (since Jan 2026, with `log_completions=True`)
 * writes them as Parquet (`completions/completions_<step>.parquet`: step, prompt, completion, one column per reward
 * function, advantage), a binary format this importer does not parse; stream samples with the logging clients.
 */
import type { ImportFile, ImportedRun, ImportProblem } from "./types";

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
    if (value && typeof value === "object" && !Array.isArray(value) && Array.isArray((value as TrainerState).log_history)) return value as TrainerState;
    problems.push({ file: file.path, message: 'not a trainer_state.json (no "log_history" list)' });
  } catch (err) {
    problems.push({ file: file.path, message: `not valid JSON (${(err as Error).message})` });
  }
  return null;
}

export function importTrl(files: ImportFile[], opts: { name: string }): ImportedRun {
  const problems: ImportProblem[] = [];
  const states = files
    .filter((f) => /(^|\/)trainer_state\.json$/.test(f.path))
    .map((f) => ({ file: f, state: readState(f, problems) }))
    .filter((s): s is { file: ImportFile; state: TrainerState } => s.state !== null);
  if (states.length === 0) {
    if (problems.length === 0) problems.push({ file: files[0]?.path ?? "(none)", message: "no trainer_state.json: point at a TRL output_dir or one of its checkpoint-* folders" });
    return { run: { name: opts.name, source: "trl", environment: "trl", config: {} }, steps: [], trajectories: [], problems };
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
    for (const [k, v] of Object.entries(e)) if (!SKIPPED.has(k) && typeof v === "number" && Number.isFinite(v)) metrics[trlMetricName(k)] = v;
    if (Object.keys(metrics).length) steps.push({ step: e.step, metrics });
  });
  // TRL may log evaluation and training entries at the same step: one record per step, later entries merged in.
  const byStep = new Map<number, Record<string, number>>();
  for (const s of steps) byStep.set(s.step, { ...(byStep.get(s.step) ?? {}), ...s.metrics });
  const config: Record<string, unknown> = { importedFrom: `TRL ${file.path}` };
  for (const k of ["global_step", "max_steps", "num_train_epochs", "logging_steps", "train_batch_size", "eval_steps", "save_steps"]) if (state[k] !== undefined) config[k] = state[k];
  if (Object.keys(summary).length) config.summary = summary;
  return {
    run: { name: opts.name, source: "trl", environment: "trl", config },
    steps: [...byStep.entries()].sort(([a], [b]) => a - b).map(([step, metrics]) => ({ step, metrics })),
    trajectories: [],
    problems,
  };
}
