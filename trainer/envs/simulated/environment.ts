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
import { z } from "zod";
import type { Demonstration, Environment, Task } from "../types";
import { SimulatedEpisode } from "./episode";
import { SimiaEpisode } from "./simia-episode";
import { loadSimulatedTasks, parseSimulatedTaskFile } from "./importer";
import { SimulatedPromptsSchema, DEFAULT_SIMULATED_PROMPTS } from "./prompts";
import type { SimulatedTaskData } from "./task-schema";

export const SimulatedEnvConfigSchema = z.object({
  /**
   * "simia": Simia-RL's single simulator playing user and tools, its opening and judge inputs (simia-episode.ts);
   * "split": a user simulator and a tool simulator over the task's structured data (episode.ts).
   */
  simulator: z.enum(["simia", "split"]).default("simia"),
  prompts: SimulatedPromptsSchema.default(DEFAULT_SIMULATED_PROMPTS),
  toolPromptStyle: z.enum(["hermes", "json", "bracket"]).default("hermes"),
  /** Agent messages (simia) or simulator calls (split) per episode before it is judged; Simia-RL's max_simulation_steps. */
  maxSimSteps: z.number().int().positive().max(1000).default(25),
  judge: z
    .object({
      /** Share of the expected outcome the offline judge needs for reward 1: 1 is strict, lower is more lenient. */
      threshold: z.number().min(0).max(1).default(1),
      /** "exact": arguments must equal the expected ones; "lenient": case/whitespace-insensitive, extras allowed. */
      argumentMatch: z.enum(["exact", "lenient"]).default("lenient"),
      samples: z.number().int().min(1).max(9).default(1),
      maxAttempts: z.number().int().min(1).max(5).default(2),
      aggregate: z.enum(["mean", "majority"]).default("mean"),
      /**
       * A judgement that never parsed: "unscored" (reward null, left out of advantages — a broken judge must not
       * read as a bad policy) or "zero" (Simia-RL scores it 0). Strict mode only.
       */
      unparsable: z.enum(["unscored", "zero"]).default("unscored"),
      /**
       * "strict": our judge — a {"reasoning", "reward" 0..1} object, an unreadable reply retried with the problem
       * fed back, then unscored (or 0 with `unparsable: "zero"`). "simia": Simia-RL's — one call, its parse and its
       * score (trainer/judge/simia-judgement.ts), an unreadable reply 0, and Simia's sampling parameters
       * (`simiaSampling`) on the simulator's and the judge's requests; `samples`, `maxAttempts` and `unparsable` do
       * not apply.
       */
      mode: z.enum(["strict", "simia"]).default("strict"),
    })
    .default({
      threshold: 1,
      argumentMatch: "lenient",
      samples: 1,
      maxAttempts: 2,
      aggregate: "mean",
      unparsable: "unscored",
      mode: "strict",
    }),
  /**
   * What Simia's mode sends with every simulator and judge request, in place of the endpoint's temperature and
   * max_tokens: Simia's SimulatedEnvConfig defaults. Lower max_completion_tokens for a server with a shorter context.
   */
  simiaSampling: z
    .object({ temperature: z.number().min(0).max(2).default(1), max_completion_tokens: z.number().int().positive().default(60000) })
    .strict()
    .default({ temperature: 1, max_completion_tokens: 60000 }),
});
export type SimulatedEnvConfig = z.infer<typeof SimulatedEnvConfigSchema>;
export type SimulatedEnvConfigInput = z.input<typeof SimulatedEnvConfigSchema>;

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
        judge: cfg.judge,
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
