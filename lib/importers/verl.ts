/**
 * verl's rollout dumps: with `trainer.rollout_data_dir` (and `trainer.validation_data_dir` for validation) set,
 * verl's RayPPOTrainer._dump_generations writes one `<global step>.jsonl` per step, one line per sample:
 *
 *   {"input": <prompt as rendered by the chat template>, "output": <decoded response>, "gts": <ground truth, newer
 *    versions>, "score": <sequence reward>, "step": <global step>, <each reward_extra_info key>: <value>}
 *
 * verl samples `rollout.n` responses per prompt, so samples of a step that share the same input form a GRPO group
 * (or the same `uid`, verl's own group id, when a reward function dumps it). The prompt is already rendered text
 * (roles are not recoverable without the tokenizer's template), so it becomes one user message. Numeric and boolean
 * extra infos become reward components; text extras (`pred`, `feedback`, …) describe that one sample, so they are its
 * reasoning (how it was scored), never the group's. Python writes a NaN score as `NaN`: read as unscored.
 */
import type { TrajectoryInput } from "../ingest";
import { fnv1a32 } from "../seeded-random";
import { jsonLines, rewardCurve, type ImportFile, type ImportedRun, type ImportProblem } from "./types";

const KNOWN = new Set(["input", "output", "gts", "score", "step", "uid"]);

/** A short stable key for a long prompt (FNV-1a, 32 bits, hex, and its length) so group keys stay small. */
export function promptKey(text: string): string {
  return `prompt-${fnv1a32(text).toString(16).padStart(8, "0")}-${text.length}`;
}

export function importVerl(files: ImportFile[], opts: { name: string; split?: "train" | "eval" }): ImportedRun {
  const problems: ImportProblem[] = [];
  const trajectories: TrajectoryInput[] = [];
  const split = opts.split ?? "train";
  const dumps = files.filter((f) => /(^|\/)\d+\.jsonl$/.test(f.path)).sort((a, b) => stepOfName(a.path) - stepOfName(b.path));
  if (dumps.length === 0)
    problems.push({
      file: files[0]?.path ?? "(none)",
      message: "no <step>.jsonl files: point at verl's trainer.rollout_data_dir (or validation_data_dir)",
    });
  for (const file of dumps) {
    for (const { line, value } of jsonLines(file, problems)) {
      const bad = (message: string) => problems.push({ file: file.path, line, message });
      if (typeof value.input !== "string") {
        bad('"input" must be the prompt text');
        continue;
      }
      if (typeof value.output !== "string") {
        bad('"output" must be the response text');
        continue;
      }
      const score = value.score ?? null;
      if (score !== null && (typeof score !== "number" || !Number.isFinite(score))) {
        bad('"score" must be a number (NaN: unscored)');
        continue;
      }
      const step = typeof value.step === "number" && Number.isInteger(value.step) && value.step >= 0 ? value.step : stepOfName(file.path);
      const components: Record<string, number> = {};
      const notes: string[] = [];
      for (const [k, v] of Object.entries(value)) {
        if (KNOWN.has(k) || v === null || v === undefined || v === "") continue;
        if (typeof v === "number" && Number.isFinite(v)) components[k] = v;
        else if (typeof v === "boolean") components[k] = v ? 1 : 0;
        else notes.push(`${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
      }
      const key = promptKey(value.input);
      const group = typeof value.uid === "string" || typeof value.uid === "number" ? `uid-${value.uid}`.slice(0, 300) : key;
      trajectories.push({
        id: `${file.path}:${line}`,
        step,
        split,
        group,
        taskId: key,
        ...(value.gts !== undefined ? { task: { ground_truth: value.gts } } : {}),
        conversation: [
          { role: "user", source: "system", content: value.input, turn: 0 },
          { role: "assistant", source: "policy", content: value.output, turn: 0 },
        ],
        reward: score as number | null,
        rewardComponents: components,
        reasoning: notes.length ? notes.join("\n").slice(0, 100_000) : null,
      });
    }
  }
  return {
    run: { name: opts.name, source: "verl", environment: "verl", config: { importedFrom: "verl rollout dump", files: dumps.length } },
    steps: rewardCurve(trajectories),
    trajectories,
    problems,
  };
}

function stepOfName(path: string): number {
  const m = /(\d+)\.jsonl$/.exec(path);
  return m ? Number(m[1]) : 0;
}
