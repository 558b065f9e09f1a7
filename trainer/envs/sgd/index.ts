/**
 * Agent Gym on Schema-Guided Dialogue: the registry entry point. `loadTasks(dir)` imports a real SGD split folder
 * (schema.json + dialogues_*.json); without it the builtin tasks (two small services written for this project) run
 * out of the box. Tasks are self-contained (goal, schema excerpt, their own recorded calls), so an episode also runs
 * in a worker that never loaded the corpus; a loaded corpus adds few-shot examples, mined user phrasings and
 * corpus-wide recordings for the tool mocker.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import type { Environment } from "../types";
import type { ToolPromptStyle } from "../parse";
import { loadSgdCorpus, type SgdDialogue } from "./sgd-format";
import { recordedCallsOf, tasksFromCorpus, type RecordedCall, type SgdTask, type SgdTaskData } from "./sgd-task";
import { mergeTemplates, mineUserTemplates, type UserTemplates } from "./user-templates";
import { createSgdEpisode } from "./sgd-episode";
import { sgdDemonstrations } from "./sgd-demonstrations";

/** The `sgd` section of a run config. */
export const SgdConfigSchema = z
  .object({
    /**
     * "turn_judge" (agent_gym's): each assistant turn judged on its own, the turn scores feeding turn-level credit,
     * the episode's reward their mean; "goal_blend": goal completion blended with an episode-level judge.
     */
    rewardMode: z.enum(["turn_judge", "goal_blend"]).default("turn_judge"),
    /** goal_blend: share of the judge's quality score in the reward (rest: goal completion). */
    judgeWeight: z.number().min(0).max(1).default(0.5),
    /** Real dialogues shown to an LLM user simulator. */
    fewShot: z.number().int().min(0).max(8).default(2),
    /**
     * A user prompt chosen by `rollout-lab sgd optimize-user` (user-prompt-search.ts): its style instruction and
     * few-shot count, with the artifact's name, replace the defaults above. The run config keeps the prompt itself.
     */
    userPrompt: z
      .object({ artifact: z.string().min(1), instruction: z.string().min(1).max(4000), fewShot: z.number().int().min(0).max(8) })
      .strict()
      .optional(),
    /** How tools are described to the policy. */
    toolStyle: z.enum(["hermes", "json", "bracket"]).default("hermes"),
    /**
     * The tool mocker (tool-mocker.ts). `matching`: "agent_gym" (its exact → fuzzy ≥ 0.8 → LLM → fuzzy ≥ 0.5 → first
     * recording) or "tolerant" (parameter names checked, values compared in canonical form, searches answered by
     * filtering recorded rows, then the same fallbacks). `fuzzy`, `llmFallback`, `anyRecording` switch the fallbacks.
     */
    mocker: z
      .object({
        matching: z.enum(["agent_gym", "tolerant"]).default("agent_gym"),
        fuzzy: z.boolean().default(true),
        llmFallback: z.boolean().default(true),
        anyRecording: z.boolean().default(true),
      })
      .strict()
      .default({ matching: "agent_gym", fuzzy: true, llmFallback: true, anyRecording: true }),
  })
  .strict();
export type SgdEnvironmentOptions = z.input<typeof SgdConfigSchema>;

interface BuiltinFile {
  templates: UserTemplates;
  tasks: SgdTask[];
}

function readBuiltin(): BuiltinFile {
  return JSON.parse(readFileSync(new URL("./builtin-tasks.json", import.meta.url), "utf8")) as BuiltinFile;
}

export function createSgdEnvironment(config: SgdEnvironmentOptions | Record<string, unknown> = {}): Environment<SgdTaskData> {
  const parsed = SgdConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new Error(
      `Invalid sgd environment config: ${parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ")}`,
    );
  }
  const opts = parsed.data;
  const builtin = readBuiltin();
  const judgeWeight = opts.judgeWeight;
  let corpus: SgdDialogue[] = [];
  let recordings: RecordedCall[] = [];
  let templates = builtin.templates;

  return {
    name: "sgd",
    description:
      "Agent Gym on Schema-Guided Dialogue: a goal-driven simulated user, services answered by a tool mocker from " +
      "recorded SGD results; reward = the per-turn judge's mean score (rewardMode goal_blend: goal completion blended with an episode judge).",
    builtinTasks: () => builtin.tasks,
    async loadTasks(dir: string) {
      const loaded = await loadSgdCorpus(dir);
      corpus = loaded.dialogues;
      recordings = corpus.flatMap(recordedCallsOf);
      templates = mergeTemplates(mineUserTemplates(corpus), builtin.templates);
      return tasksFromCorpus(loaded, dir);
    },
    // The real dialogues' SYSTEM side, for tasks of a loaded corpus: the builtin tasks have no recorded dialogue.
    async demonstrations(tasks) {
      return sgdDemonstrations(tasks, corpus, opts.toolStyle as ToolPromptStyle);
    },
    createEpisode(task, ctx) {
      const services = new Set(task.data.services.map((s) => s.name));
      return createSgdEpisode(task.data, ctx, {
        corpus,
        extraRecordings: recordings.filter((r) => services.has(r.service)),
        templates,
        judgeWeight,
        fewShot: opts.userPrompt?.fewShot ?? opts.fewShot,
        userInstruction: opts.userPrompt?.instruction,
        toolStyle: opts.toolStyle as ToolPromptStyle,
        mocker: opts.mocker,
        rewardMode: opts.rewardMode,
      });
    },
  };
}

export { loadSgdCorpus } from "./sgd-format";
export { scoreUserRealism, realUserTurns, simulatedUserTurns } from "./user-realism";
export type { SgdTaskData } from "./sgd-task";
