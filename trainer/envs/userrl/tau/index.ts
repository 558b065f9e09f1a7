/**
 * `userrl-tau`: UserRL's TauGym (tau-gym.ts) as a registry environment. Builtin tasks run on the τ² environment's
 * Harbor Goods store; `loadTasks(path)` reads TauGym's task file with tau-bench's data beside it (tau-data.ts).
 */
import { scriptedDemonstration } from "../../scripted-demonstration";
import type { Demonstration, Environment } from "../../types";
import { createGymEpisode, type GymOptions } from "../gym-episode";
import { UserRlConfigSchema } from "../../../../lib/userrl-options";
import { builtinTauGym, loadTauGymTasks, readTauData, type TauGymTask } from "./tau-data";
import { forkData, type TauData, type Work } from "./tool-core";
import { runDomainTool, TERMINATE_TOOLS } from "./domains";
import { tauRules } from "./tau-gym";

export function createTauGymEnvironment(config: GymOptions | Record<string, unknown> = {}): Environment<TauGymTask> {
  const parsed = UserRlConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new Error(
      `Invalid userrl-tau config: ${parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ")}`,
    );
  }
  const options: GymOptions = parsed.data;
  const builtin = builtinTauGym();
  const loaded = new Map<string, TauData>();
  const expected = new Map<string, Work>();

  /** createEpisode is synchronous: a worker that never called loadTasks reads a folder's data here, once. */
  const dataFor = (task: TauGymTask): TauData => {
    if (task.source.kind === "builtin") return builtin.data;
    let data = loaded.get(task.source.dir);
    if (!data) loaded.set(task.source.dir, (data = readTauData(task.source.dir, task.domain)));
    return data;
  };
  const expectedFor = (task: TauGymTask) => {
    const key = `${task.source.kind === "dir" ? task.source.dir : "builtin"}::${task.taskId}`;
    let w = expected.get(key);
    if (!w) {
      w = forkData(dataFor(task));
      // tau-bench replays every gold action but the terminating one.
      for (const a of task.actions) if (!TERMINATE_TOOLS.includes(a.name)) runDomainTool(task.domain, w, a.name, a.kwargs);
      expected.set(key, w);
    }
    return w;
  };
  const rules = tauRules({ dataFor, expectedFor });

  const env: Environment<TauGymTask> = {
    name: "userrl-tau",
    description:
      "UserRL Tau: tau-bench retail or airline customer service as a gym ([search] tools, [action] to the customer, [answer] a tool call).",
    builtinTasks: () => builtin.tasks,
    loadTasks: loadTauGymTasks,
    createEpisode: (task, ctx) => createGymEpisode(task, ctx, rules, options),
    async demonstrations(tasks) {
      const played = await Promise.all(tasks.map((t) => scriptedDemonstration(env, t, (turn) => rules.solution(t.data)[turn] ?? null)));
      return played.filter((d): d is Demonstration => d !== null);
    },
  };
  return env;
}

export type { TauGymTask } from "./tau-data";
