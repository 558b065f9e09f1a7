/**
 * Which trainer runs a run: `execution.engine` in the RunConfig. "builtin" is Rollout Lab's own TensorFlow.js
 * trainer; "trl", "verl" and "skyrl" are outside engines on a GPU machine that play the run's environment through the
 * environment server (examples/*.py are their adapters). For an outside engine the run's GRPO settings are mapped
 * onto the engine's own config (lib/engine-mapping.ts); a setting the engine cannot express is refused here, at
 * creation, naming the field — never dropped silently. docs/engines.md has the table.
 */
import { z } from "zod";
import type { RunConfig } from "./run-config";
import { mapRunToEngine } from "./engine-mapping";

export const ENGINES = ["builtin", "trl", "verl", "skyrl"] as const;
export type EngineName = (typeof ENGINES)[number];
export type OutsideEngine = Exclude<EngineName, "builtin">;

export const engineSchema = z
  .enum(ENGINES)
  .default("builtin")
  .describe(
    'The trainer: "builtin" (Rollout Lab\'s own), or an outside engine the launcher starts with the run\'s settings mapped onto its config: "trl" (GRPOTrainer), "verl" (main_ppo with an agent loop), "skyrl" (SkyRL-train with a SkyRL-gym env); docs/engines.md.',
  );

export interface EngineIssue {
  path: (string | number)[];
  message: string;
}

/** Fields an outside engine cannot honour, with the field and the fix; empty for the built-in trainer. */
export function engineIssues(c: RunConfig): EngineIssue[] {
  const engine = c.execution.engine;
  if (engine === "builtin") return [];
  return mapRunToEngine(c, engine).refused;
}
