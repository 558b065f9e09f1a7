/** The importers by format name, as `rollout-lab import <format> <path>` and the docs name them. */
import { importRolloutLabJsonl } from "./rollout-lab-jsonl";
import { importSimia } from "./simia";
import { importSkyrl } from "./skyrl";
import { importTau2, TAU2_FILES } from "./tau2";
import { findSecretLikeValues } from "../run-config";
import { importTrl } from "./trl";
import type { ImportFile, ImportedRun } from "./types";
import { importVerl } from "./verl";

export const IMPORT_FORMATS = {
  jsonl: { describe: "Rollout Lab's own JSONL (one file)", multiFile: false },
  verl: { describe: "verl rollout dumps (the trainer.rollout_data_dir folder of <step>.jsonl files)", multiFile: true },
  "verl-validation": { describe: "verl validation dumps (trainer.validation_data_dir), imported as the eval split", multiFile: true },
  tau2: {
    describe: "τ²-bench results (tau2 run --save-to): the JSON file, or the run folder of results.json + simulations/",
    multiFile: true,
  },
  simia: { describe: "Simia-RL's training_record folder (sample_X/env_Y_epZ_*.json)", multiFile: true },
  trl: {
    describe: "Hugging Face TRL (GRPOTrainer) output_dir: trainer_state.json's curves and completions/*.parquet's samples",
    multiFile: true,
  },
  skyrl: {
    describe:
      "SkyRL's trainer.export_path: dumped_evals/global_step_<N>_evals/*.jsonl (eval split) and dumped_data/global_step_<N>_training_input.pkl (train split; text with the policy's tokenizer.json)",
    multiFile: true,
  },
} as const;

/** The files of a folder a format reads (the rest — weights, tokenizers — are never opened). */
export function importFilesWanted(format: ImportFormat): RegExp {
  if (format === "trl") return /(^|\/)(trainer_state\.json|completions_\d+\.parquet)$/;
  if (format === "skyrl") return /(^|\/)(global_step_\d+_training_input\.pkl|tokenizer\.json)$|\.jsonl$/;
  if (format === "tau2") return TAU2_FILES;
  return /\.jsonl?$/;
}
export type ImportFormat = keyof typeof IMPORT_FORMATS;

/** `name` overrides the run's name; `fallbackName` is used when neither it nor the files name the run. */
export function runImporter(format: ImportFormat, files: ImportFile[], name: string | undefined, fallbackName: string): ImportedRun {
  const imported = format === "jsonl" ? importRolloutLabJsonl(files[0], { name }) : importOther(format, files, name ?? fallbackName);
  return withoutSecrets(imported, files[0]?.path ?? "(none)");
}

/**
 * Trainers record their settings, and some settings hold keys (`llm_args.api_key`, often "EMPTY" for a local vLLM).
 * The API refuses a config holding one, which used to refuse the whole import: each is left out and said so instead.
 */
function withoutSecrets(imported: ImportedRun, file: string): ImportedRun {
  const config = structuredClone(imported.run.config ?? {}) as Record<string, unknown>;
  const found = findSecretLikeValues(config);
  for (const at of found) {
    const keys = at.split(".");
    let parent: unknown = config;
    for (const k of keys.slice(0, -1)) parent = (parent as Record<string, unknown>)?.[k];
    if (parent && typeof parent === "object") delete (parent as Record<string, unknown>)[keys[keys.length - 1]];
  }
  if (found.length === 0) return imported;
  const notes = found.map((at) => ({ file, message: `${at} looks like a secret (an API key); it was left out of the run's config` }));
  return { ...imported, run: { ...imported.run, config }, notes: [...(imported.notes ?? []), ...notes] };
}

function importOther(format: Exclude<ImportFormat, "jsonl">, files: ImportFile[], name: string): ImportedRun {
  switch (format) {
    case "verl":
      return importVerl(files, { name });
    case "verl-validation":
      return importVerl(files, { name, split: "eval" });
    case "tau2":
      return importTau2(files, { name });
    case "simia":
      return importSimia(files, { name });
    case "trl":
      return importTrl(files, { name });
    case "skyrl":
      return importSkyrl(files, { name });
  }
}
