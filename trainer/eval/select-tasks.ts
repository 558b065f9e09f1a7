/**
 * Which tasks an evaluation plays: the ids in `eval.tasks` in their order, else every task of `dataset.evalSplit`
 * (every task when the environment has none in that split, as for its built-in tasks), at most `eval.maxTasks`.
 */
import type { RunConfig } from "../../lib/run-config";
import type { Task } from "../envs/types";

export interface EvalSelection {
  tasks: Task[];
  notes: string[];
  /**
   * What was selected, in words that are true of this selection (the leaderboard's and run page's label): "all 5
   * tasks of split "test"", "first 3 of 8 tasks (none is in split "test")", "2 chosen tasks".
   */
  label: string;
}

export function selectEvalTasks(all: readonly Task[], config: RunConfig): EvalSelection {
  const settings = config.eval;
  if (!settings) throw new Error("selectEvalTasks needs an eval section.");
  const notes: string[] = [];
  let tasks: Task[];
  if (settings.tasks) {
    const byId = new Map(all.map((t) => [t.id, t]));
    const unknown = settings.tasks.filter((id) => !byId.has(id));
    if (unknown.length) {
      const some = all
        .slice(0, 8)
        .map((t) => t.id)
        .join(", ");
      throw new Error(
        `eval.tasks names ${unknown.length} task(s) the environment does not have: ${unknown.slice(0, 5).join(", ")}${unknown.length > 5 ? ", …" : ""}. Its tasks are named like: ${some}${all.length > 8 ? ", …" : ""}.`,
      );
    }
    tasks = settings.tasks.map((id) => byId.get(id)!);
  } else {
    const inSplit = all.filter((t) => t.split === config.dataset.evalSplit);
    tasks = inSplit.length ? inSplit : [...all];
    if (!inSplit.length) notes.push(`No task is in split "${config.dataset.evalSplit}": evaluating all ${all.length} task(s).`);
  }
  const pool = tasks.length;
  if (settings.maxTasks !== undefined && tasks.length > settings.maxTasks) {
    notes.push(`Evaluating the first ${settings.maxTasks} of ${tasks.length} selected task(s) (eval.maxTasks).`);
    tasks = tasks.slice(0, settings.maxTasks);
  }
  const plural = (n: number) => `${n} task${n === 1 ? "" : "s"}`;
  const split = config.dataset.evalSplit;
  const inSplit = !settings.tasks && all.some((t) => t.split === split);
  const how = settings.tasks
    ? `${plural(tasks.length)} chosen by id`
    : `${tasks.length < pool ? `first ${tasks.length} of ${pool}` : `all ${pool}`} ${pool === 1 ? "task" : "tasks"}${
        inSplit ? ` of split "${split}"` : ` (none is in split "${split}")`
      }`;
  return { tasks, notes, label: `${config.dataset.path ?? "built-in tasks"} · ${how}` };
}
