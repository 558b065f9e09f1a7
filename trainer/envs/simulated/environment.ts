/**
 * The "simulated" environment (Simia-RL GeneralSimulated): LLM-played user and tools over a task description,
 * judged by an LLM (or the deterministic offline simulators when no endpoint is configured).
 */
import { formatToolCallText } from "../parse/tool-prompt";
import { scriptedDemonstration } from "../scripted-demonstration";
import { parseOptions } from "../../../lib/error-text";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Demonstration, Environment, Task } from "../types";
import { SimulatedEpisode } from "./episode";
import { SimiaEpisode } from "./simia-episode";
import { loadSimulatedTasks, parseSimulatedTaskFile } from "./importer";
import type { SimulatedTaskData } from "./task-schema";
import {
  SimulatedEnvConfigSchema,
  simulatedJudgeMode,
  type SimulatedEnvConfig,
  type SimulatedEnvConfigInput,
} from "../../../lib/environment-options";

export { SimulatedEnvConfigSchema, type SimulatedEnvConfig, type SimulatedEnvConfigInput };

export const BUILTIN_TASKS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "tasks");

let builtinCache: Task<SimulatedTaskData>[] | null = null;
function readBuiltinTasks(): Task<SimulatedTaskData>[] {
  if (!builtinCache) {
    builtinCache = readdirSync(BUILTIN_TASKS_DIR)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .flatMap((f) => parseSimulatedTaskFile(readFileSync(path.join(BUILTIN_TASKS_DIR, f), "utf8"), path.join(BUILTIN_TASKS_DIR, f)));
  }
  return builtinCache;
}

export function createSimulatedEnvironment(config: SimulatedEnvConfigInput = {}): Environment<SimulatedTaskData> {
  const cfg = parseOptions(SimulatedEnvConfigSchema, config, "simulated environment options");
  const env: Environment<SimulatedTaskData> = {
    name: "simulated",
    description:
      "Simia-RL: one LLM (or the offline simulator) plays the user and the tools from the task's reference conversation; a judge scores 0/1 with reasoning.",
    builtinTasks: () => readBuiltinTasks(),
    loadTasks: (p) => loadSimulatedTasks(p),
    createEpisode: (task, ctx) => {
      const options = {
        prompts: cfg.prompts,
        toolPromptStyle: cfg.toolPromptStyle,
        maxSimSteps: cfg.maxSimSteps,
        judge: { ...cfg.judge, mode: simulatedJudgeMode(cfg) },
        simiaSampling: cfg.simiaSampling,
      };
      return cfg.simulator === "simia" ? new SimiaEpisode(task, ctx, options) : new SimulatedEpisode(task, ctx, options);
    },
    // Gold play for the SFT warm-start: the expected calls in order, then a reply stating the expected facts.
    async demonstrations(tasks) {
      const played = await Promise.all(
        tasks.map((t) => {
          const script = [
            ...t.data.expected.calls.map((c) => formatToolCallText(c.name, c.arguments, cfg.toolPromptStyle)),
            t.data.expected.facts.length ? `Done. ${t.data.expected.facts.join(" ")}` : "Done.",
          ];
          return scriptedDemonstration(env, t, (turn) => script[turn] ?? null, { maxTurns: script.length });
        }),
      );
      return played.filter((d): d is Demonstration => d !== null);
    },
  };
  return env;
}
