/**
 * SkyRL's evaluation dumps: with `trainer.dump_eval_results=true`, skyrl-train writes, for every evaluation,
 * `<export_path>/dumped_evals/global_step_<N>_evals/` (or `eval_only/`) holding one `<data_source>.jsonl` per
 * dataset — `{"input_prompt", "output_response", "score", "stop_reason", "env_class", "env_extras", "data_source"}`
 * per sample, `score` a number or, for multi-turn rollouts, per-token rewards — and `aggregated_results.jsonl`
 * with the evaluation's metrics (`eval/<data_source>/avg_score`, `pass_at_<n>`, …).
 *
 * Each sample becomes an eval-split trajectory at step N (the prompt is already rendered by the tokenizer's chat
 * template, so it is one message); samples of one prompt form a group; a per-token score sums to the sequence
 * reward, as SkyRL's own metrics sum it; `stop_reason` is the end reason; `env_extras` is kept on the task.
 *
 * With `trainer.dump_data_batch=true` it also writes each step's training batch, pickled
 * (`dumped_data/global_step_<N>_training_input.pkl`): those become train-split samples (skyrl-training.ts), as text
 * when the policy's `tokenizer.json` is among the files.
 */
import type { TrajectoryInput } from "../ingest";
import { loadHfTokenizer } from "../tokenizer/hf-tokenizer";
import { jsonLines, type ImportFile, type ImportedRun, type ImportProblem } from "./types";
import { promptKey } from "./verl";
import { TRAINING_BATCH_FILE, trainingBatchSamples } from "./skyrl-training";

const TOKENIZER_FILE = /(?:^|\/)tokenizer\.json$/;

/** The decoder of the tokenizer.json among the files, or null (a problem is reported when it cannot be read). */
function tokenizerOf(files: ImportFile[], problems: ImportProblem[]): ((ids: number[]) => string) | null {
  const file = files.find((f) => TOKENIZER_FILE.test(f.path));
  if (!file) return null;
  try {
    const tok = loadHfTokenizer(file.text);
    return (ids) => tok.decode(ids);
  } catch (err) {
    problems.push({ file: file.path, message: `not a usable tokenizer.json (${(err as Error).message}); token ids are shown instead` });
    return null;
  }
}

/** The evaluation's step from its folder: global_step_<N>_evals → N; eval_only → 0. */
function stepOf(path: string): number | null {
  const m = /(?:^|\/)global_step_(\d+)_evals\//.exec(path);
  if (m) return Number(m[1]);
  return /(?:^|\/)eval_only\//.test(path) ? 0 : null;
}

function scoreOf(score: unknown): number | null | undefined {
  if (score === null) return null;
  if (typeof score === "number" && Number.isFinite(score)) return score;
  if (Array.isArray(score) && score.every((s) => typeof s === "number" && Number.isFinite(s)))
    return (score as number[]).reduce((a, b) => a + b, 0);
  return undefined;
}

export function importSkyrl(files: ImportFile[], opts: { name: string }): ImportedRun {
  const problems: ImportProblem[] = [];
  const trajectories: TrajectoryInput[] = [];
  const steps = new Map<number, Record<string, number>>();
  const dumps = files
    .filter((f) => stepOf(f.path) !== null)
    .sort((a, b) => stepOf(a.path)! - stepOf(b.path)! || a.path.localeCompare(b.path));
  const batches = files
    .filter((f) => TRAINING_BATCH_FILE.test(f.path))
    .sort((a, b) => a.path.localeCompare(b.path, "en", { numeric: true }));
  if (dumps.length === 0 && batches.length === 0)
    problems.push({
      file: files[0]?.path ?? "(none)",
      message:
        "no dumped_evals/global_step_<N>_evals/*.jsonl or dumped_data/global_step_<N>_training_input.pkl: point at SkyRL's trainer.export_path (with trainer.dump_eval_results=true or trainer.dump_data_batch=true)",
    });
  const envClasses = new Set<string>();
  for (const file of dumps) {
    const step = stepOf(file.path)!;
    if (/(^|\/)aggregated_results\.jsonl$/.test(file.path)) {
      for (const { value } of jsonLines(file, problems)) {
        const metrics = steps.get(step) ?? {};
        for (const [k, v] of Object.entries(value))
          if (typeof v === "number" && Number.isFinite(v)) metrics[k.startsWith("eval/") ? k : `eval/${k}`] = v;
        steps.set(step, metrics);
      }
      continue;
    }
    for (const { line, value } of jsonLines(file, problems)) {
      const bad = (message: string) => problems.push({ file: file.path, line, message });
      if (typeof value.input_prompt !== "string") {
        bad('"input_prompt" must be the prompt text');
        continue;
      }
      if (typeof value.output_response !== "string") {
        bad('"output_response" must be the response text');
        continue;
      }
      const reward = scoreOf(value.score);
      if (reward === undefined) {
        bad('"score" must be a number or a list of per-token rewards');
        continue;
      }
      if (typeof value.env_class === "string") envClasses.add(value.env_class);
      const key = promptKey(value.input_prompt);
      const dataSource = typeof value.data_source === "string" ? value.data_source : "unknown";
      trajectories.push({
        id: `${file.path}:${line}`,
        step,
        split: "eval",
        group: `${dataSource}/${key}`,
        taskId: `${dataSource}/${key}`,
        task: { data_source: dataSource, env_class: value.env_class ?? null, env_extras: value.env_extras ?? null },
        conversation: [
          { role: "user", source: "system", content: value.input_prompt, turn: 0 },
          { role: "assistant", source: "policy", content: value.output_response, turn: 0 },
        ],
        reward,
        rewardComponents: {},
        endReason: typeof value.stop_reason === "string" ? value.stop_reason : null,
      });
    }
  }
  const training = trainingBatchSamples(batches, batches.length ? tokenizerOf(files, problems) : null, problems);
  trajectories.push(...training.trajectories);
  for (const [step, metrics] of training.steps) steps.set(step, { ...(steps.get(step) ?? {}), ...metrics });
  const envs = [...envClasses];
  const sources = [...(dumps.length ? ["dumped_evals"] : []), ...(batches.length ? ["dumped_data"] : [])];
  return {
    run: {
      name: opts.name,
      source: "skyrl",
      environment: envs.length === 1 ? envs[0] : "skyrl",
      config: {
        importedFrom: `SkyRL ${sources.join(" + ")}`,
        evaluations: new Set(dumps.map((d) => stepOf(d.path))).size,
        trainingBatches: batches.length,
        ...(batches.length
          ? {
              note: "SkyRL drops the rewards from a training batch before dumping it: its samples are unscored; each step's mean reward is on the reward/mean curve.",
            }
          : {}),
      },
    },
    steps: [...steps.entries()].sort(([a], [b]) => a - b).map(([step, metrics]) => ({ step, metrics })),
    trajectories,
    problems,
  };
}
