/**
 * EnvTuning's curriculum on BFCL (Lu et al., 2025, §3; AWorld-RL's stage scripts): the agent first learns to emit
 * well-formed calls, then to solve the base multi-turn tasks, then everything (missing parameters / functions,
 * long context). Stages 1 and 2 train with the format reward, stage 3 with the progress (BFCL) reward. In a run
 * config each stage is a `curriculum[]` entry: its `filter.tags` selects the tasks and its `environmentOptions`
 * switch the reward mode (see `BFCL_CURRICULUM_STAGES`; the run page charts `curriculum/stage` per step).
 *
 * | stage | run-config filter            | tasks                                           | rewardMode |
 * |-------|------------------------------|-------------------------------------------------|------------|
 * | 1     | `{ tags: ["format"] }`       | short entries (≤ 4 ground-truth calls in total) | "format"   |
 * | 2     | `{ tags: ["base"] }`         | the multi_turn_base category                    | "format"   |
 * | 3     | `{}`                         | every imported entry                            | "progress" |
 *
 * Other tags: "bfcl", the BFCL category ("multi_turn_base", "multi_turn_miss_param", ...), the short category
 * ("base", "miss_param", "miss_func", "long_context"), "class:<ApiClass>" per involved class, "multi_class".
 */
import type { Task } from "../types";
import type { BfclTaskData } from "./bfcl-format";
import type { BfclRewardMode } from "./bfcl-reward";

export const FORMAT_STAGE_MAX_CALLS = 4;

export interface BfclCurriculumStage {
  name: string;
  filter: { tags?: string[] };
  rewardMode: BfclRewardMode;
}

export const BFCL_CURRICULUM_STAGES: readonly BfclCurriculumStage[] = [
  { name: "stage1_format", filter: { tags: ["format"] }, rewardMode: "format" },
  { name: "stage2_base", filter: { tags: ["base"] }, rewardMode: "format" },
  { name: "stage3_all", filter: {}, rewardMode: "progress" },
];

export function bfclTags(data: BfclTaskData): string[] {
  const tags = new Set<string>(["bfcl", data.category]);
  const short = data.category.replace(/^multi_turn_/, "");
  if (short !== data.category) tags.add(short);
  for (const c of data.involvedClasses) tags.add(`class:${c}`);
  if (data.involvedClasses.length > 1) tags.add("multi_class");
  const calls = data.groundTruth.reduce((n, t) => n + t.length, 0);
  if (calls <= FORMAT_STAGE_MAX_CALLS) tags.add("format");
  return [...tags];
}

/** The stages as run-config `curriculum` entries (steps per stage given), each switching the reward mode. */
export function bfclCurriculum(stepsPerStage: readonly [number, number, number]) {
  return BFCL_CURRICULUM_STAGES.map((stage, i) => ({
    name: stage.name,
    steps: stepsPerStage[i],
    filter: stage.filter,
    environmentOptions: { rewardMode: stage.rewardMode },
  }));
}

/** Tasks a stage's filter selects: any listed tag matches, as the trainer's curriculum (trainer/loop) applies it. */
export function selectStageTasks<T extends Task<BfclTaskData>>(tasks: T[], stage: Pick<BfclCurriculumStage, "filter">): T[] {
  const wanted = stage.filter.tags ?? [];
  return wanted.length === 0 ? tasks : tasks.filter((t) => wanted.some((tag) => t.tags.includes(tag)));
}
