/**
 * Agent Gym on Schema-Guided Dialogue: the registry entry point. `loadTasks(dir)` imports a real SGD split folder
 * (schema.json + dialogues_*.json); without it the builtin tasks (two small services written for this project) run
 * out of the box. Tasks are self-contained (goal, schema excerpt, their own recorded calls), so an episode also runs
 * in a worker that never loaded the corpus; a loaded corpus adds few-shot examples, mined user phrasings and
 * corpus-wide recordings for the tool mocker.
 */
import { readFileSync } from "node:fs";
import type { Environment } from "../types";
import type { ToolPromptStyle } from "../parse";
import { loadSgdCorpus, type SgdDialogue } from "./sgd-format";
import { recordedCallsOf, tasksFromCorpus, type RecordedCall, type SgdTask, type SgdTaskData } from "./sgd-task";
import { mergeTemplates, mineUserTemplates, type UserTemplates } from "./user-templates";
import { createSgdEpisode } from "./sgd-episode";
import { sgdDemonstrations } from "./sgd-demonstrations";
import { SgdConfigSchema, type SgdEnvironmentOptions } from "../../../lib/environment-options";

export { SgdConfigSchema, type SgdEnvironmentOptions };

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
