/**
 * Which tasks an evaluation plays: the ids in `eval.tasks` in their order, else every task of `dataset.evalSplit`
 * (every task when the environment has none in that split, as for its built-in tasks), at most `eval.maxTasks`.
 */
import type { RunConfig } from "../../lib/run-config";
import type { Task } from "../envs/types";

export function selectEvalTasks(all: readonly Task[], config: RunConfig): { tasks: Task[]; notes: string[] } {
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
  if (settings.maxTasks !== undefined && tasks.length > settings.maxTasks) {
    notes.push(`Evaluating the first ${settings.maxTasks} of ${tasks.length} selected task(s) (eval.maxTasks).`);
    tasks = tasks.slice(0, settings.maxTasks);
  }
  return { tasks, notes };
}
