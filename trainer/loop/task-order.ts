/**
 * Which tasks a step trains on. The order is a pure function of (seed, step): each pass over the data ("epoch")
 * is a fresh seeded shuffle and step s takes the next `groupsPerStep` tasks from cursor s × groupsPerStep. A
 * resumed run therefore sees exactly the tasks the uninterrupted run would have seen, with no saved cursor to get
 * out of sync. Curriculum stages (EnvTuning's format → base → all) each shuffle their own filtered task list, and
 * the cursor restarts at each stage boundary.
 */
import type { RunConfig } from "../../lib/run-config";
import type { Task } from "../envs/types";
import { mulberry32 } from "../../lib/seeded-random";

/** Mix several integers into one 32-bit seed (so step 3 of seed 1 differs from step 1 of seed 3). */
export function mixSeed(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x01000193) >>> 0;
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
  }
  return h >>> 0;
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  const rand = mulberry32(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Tasks at positions [cursor, cursor + count) of the endless sequence of seeded epoch shuffles. */
export function tasksAtCursor<T>(tasks: readonly T[], seed: number, cursor: number, count: number): T[] {
  if (tasks.length === 0) throw new Error("No training tasks: the dataset (or the curriculum stage's filter) selected none.");
  const out: T[] = [];
  let epochCache = -1;
  let order: T[] = [];
  for (let pos = cursor; pos < cursor + count; pos++) {
    const epoch = Math.floor(pos / tasks.length);
    if (epoch !== epochCache) {
      order = shuffled(tasks, mixSeed(seed, epoch));
      epochCache = epoch;
    }
    out.push(order[pos % tasks.length]);
  }
  return out;
}

export interface StageSelection {
  stageName: string | null;
  /** Index into config.curriculum, or null without stages. */
  stageIndex: number | null;
  tasks: Task[];
  /** The tasks this step draws from (the curriculum stage's pool, or all): DAPO's refill samples more from it. */
  pool: readonly Task[];
  /** Data cursor within the stage's task list (stored in checkpoints for inspection). */
  cursor: number;
}

function matchesFilter(task: Task, filter: { tags?: string[]; split?: string }): boolean {
  if (filter.split && task.split !== filter.split) return false;
  if (filter.tags?.length && !filter.tags.some((t) => task.tags.includes(t))) return false;
  return true;
}

/** The tasks of training step `step` (0-based), honouring curriculum stages. */
export function sampleTasksForStep(config: RunConfig, tasks: readonly Task[], step: number): StageSelection {
  const perStep = config.grpo.groupsPerStep;
  if (config.curriculum.length === 0) {
    const cursor = step * perStep;
    return { stageName: null, stageIndex: null, tasks: tasksAtCursor(tasks, config.seed, cursor, perStep), cursor, pool: tasks };
  }
  let start = 0;
  for (const [index, stage] of config.curriculum.entries()) {
    if (step < start + stage.steps || index === config.curriculum.length - 1) {
      const pool = tasks.filter((t) => matchesFilter(t, stage.filter));
      if (pool.length === 0)
        throw new Error(
          `Curriculum stage "${stage.name}" selects no tasks; loosen its filter (tags ${JSON.stringify(stage.filter.tags ?? [])}).`,
        );
      const cursor = (step - start) * perStep;
      return {
        stageName: stage.name,
        stageIndex: index,
        tasks: tasksAtCursor(pool, mixSeed(config.seed, index + 1), cursor, perStep),
        cursor,
        pool,
      };
    }
    start += stage.steps;
  }
  throw new Error("unreachable: curriculum has stages");
}

/**
 * DAPO's extra generation rounds: `count` more tasks for refill round `round` (1, 2, …) of `step`, drawn from the
 * step's pool in their own seeded order, so a resumed run draws exactly the same ones.
 */
export function refillTasks(config: RunConfig, pool: readonly Task[], step: number, round: number, count: number): Task[] {
  return tasksAtCursor(pool, mixSeed(config.seed, 0x0dab0, step, round), 0, count);
}
