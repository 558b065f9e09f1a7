/**
 * Every file-system path in a run config, resolved inside the worker's data roots (trainer/data-roots.ts) before the
 * run touches it: `dataset.path`, `dataset.demonstrationsPath`, a checkpoint folder in `policy.model` and a
 * `policy.tokenizer` file. The run then works with real absolute paths; a path that escapes fails the run with one
 * sentence that quotes nothing from the file system.
 */
import { BUILTIN_MODEL_SIZES, type RunConfig } from "../../../lib/run-config";
import { resolveDataPath } from "../../data-roots";

export async function confineRunPaths(config: RunConfig, roots: string[]): Promise<RunConfig> {
  const out: RunConfig = { ...config, dataset: { ...config.dataset }, policy: { ...config.policy } };
  if (out.dataset.path) out.dataset.path = await resolveDataPath("dataset.path", out.dataset.path, roots);
  if (out.dataset.demonstrationsPath) {
    out.dataset.demonstrationsPath = await resolveDataPath("dataset.demonstrationsPath", out.dataset.demonstrationsPath, roots);
  }
  if (!(BUILTIN_MODEL_SIZES as readonly string[]).includes(out.policy.model)) {
    out.policy.model = await resolveDataPath("policy.model", out.policy.model, roots);
  }
  if (out.policy.tokenizer !== "byte") out.policy.tokenizer = await resolveDataPath("policy.tokenizer", out.policy.tokenizer, roots);
  return out;
}
