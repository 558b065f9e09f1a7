/**
 * Rollout Lab's own import format, for any trainer without an importer (docs/import.md): JSONL, one record per line,
 *
 *   {"type": "run", "name": "...", "source": "other", "policyModel": "...", "config": {...}}       (first line)
 *   {"type": "step", "step": 3, "metrics": {"reward/mean": 0.41, "kl/mean": 0.02}}
 *   {"type": "trajectory", "id": "s3-p7-k2", "step": 3, "group": "p7", "conversation": [...], "reward": 1, ...}
 *
 * Fields are exactly the ingest API's (lib/ingest.ts); each bad line is named with the field at fault.
 */
import { z } from "zod";
import { externalRunInput, stepsInput, trajectoryInput, type ExternalRunInput, type TrajectoryInput } from "../ingest";
import { jsonLines, type ImportFile, type ImportedRun, type ImportProblem } from "./types";

const stepRecord = stepsInput.shape.steps.element;

function describe(err: z.ZodError): string {
  const issue = err.issues[0];
  return `${issue.path.join(".") || "(record)"}: ${issue.message}`;
}

export function importRolloutLabJsonl(file: ImportFile, opts: { name?: string }): ImportedRun {
  const problems: ImportProblem[] = [];
  let run: ExternalRunInput | null = null;
  const steps: ImportedRun["steps"] = [];
  const trajectories: TrajectoryInput[] = [];
  for (const { line, value } of jsonLines(file, problems)) {
    const { type, ...rest } = value;
    const schema = type === "run" ? externalRunInput : type === "step" ? stepRecord : type === "trajectory" ? trajectoryInput : null;
    if (!schema) {
      problems.push({ file: file.path, line, message: `"type" must be "run", "step" or "trajectory" (got ${JSON.stringify(type)})` });
      continue;
    }
    const parsed = schema.safeParse(rest);
    if (!parsed.success) {
      problems.push({ file: file.path, line, message: describe(parsed.error) });
      continue;
    }
    if (type === "run") {
      if (run) problems.push({ file: file.path, line, message: "a second run record; one file holds one run" });
      else run = rest as ExternalRunInput;
    } else if (type === "step") steps.push(parsed.data as ImportedRun["steps"][number]);
    else trajectories.push(rest as TrajectoryInput);
  }
  if (!run) problems.push({ file: file.path, message: 'no {"type": "run", …} record; the file needs one (name, source)' });
  return {
    run: { ...(run ?? { name: "imported run", source: "other" }), ...(opts.name ? { name: opts.name } : {}) },
    steps,
    trajectories,
    problems,
  };
}
