/** The importers by format name, as `rollout-lab import <format> <path>` and the docs name them. */
import { importRolloutLabJsonl } from "./rollout-lab-jsonl";
import { importSimia } from "./simia";
import { importSkyrl } from "./skyrl";
import { importTau2 } from "./tau2";
import { importTrl } from "./trl";
import type { ImportFile, ImportedRun } from "./types";
import { importVerl } from "./verl";

export const IMPORT_FORMATS = {
  jsonl: { describe: "Rollout Lab's own JSONL (one file)", multiFile: false },
  verl: { describe: "verl rollout dumps (the trainer.rollout_data_dir folder of <step>.jsonl files)", multiFile: true },
  "verl-validation": { describe: "verl validation dumps (trainer.validation_data_dir), imported as the eval split", multiFile: true },
  tau2: { describe: "τ²-bench results JSON (tau2 run --save-to)", multiFile: false },
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
  return /\.jsonl?$/;
}
export type ImportFormat = keyof typeof IMPORT_FORMATS;

/** `name` overrides the run's name; `fallbackName` is used when neither it nor the files name the run. */
export function runImporter(format: ImportFormat, files: ImportFile[], name: string | undefined, fallbackName: string): ImportedRun {
  if (format === "jsonl") return importRolloutLabJsonl(files[0], { name });
  return importOther(format, files, name ?? fallbackName);
}

function importOther(format: Exclude<ImportFormat, "jsonl">, files: ImportFile[], name: string): ImportedRun {
  switch (format) {
    case "verl":
      return importVerl(files, { name });
    case "verl-validation":
      return importVerl(files, { name, split: "eval" });
    case "tau2":
      return importTau2(files[0], { name });
    case "simia":
      return importSimia(files, { name });
    case "trl":
      return importTrl(files, { name });
    case "skyrl":
      return importSkyrl(files, { name });
  }
}
