/**
 * AWorld EnvTuning on BFCL multi-turn function calling as a Rollout Lab environment. The eight stateful BFCL API
 * classes (file system, math, messaging, posting, tickets, trading, travel, vehicle) are implemented in TypeScript
 * (`apis/`), so every entry of BFCL v4 multi_turn_base runs without Python. Without a dataset path, five small
 * builtin entries (written for this project) run out of the box; `loadTasks(dir)` imports a BFCL data folder.
 * Curriculum stages: see `curriculum.ts` (tags "format" → "base" → all; rewardMode "format", "format", "progress").
 */
import { readFileSync } from "node:fs";
import type { Environment, Task } from "../types";
import type { ToolSchema } from "../parse";
import { BFCL_API_CLASSES } from "./apis";
import { loadBfclDataset, parseBfclEntry, type BfclTaskData } from "./bfcl-format";
import { createBfclEpisode, messagesOf, runGroundTruth, type GroundTruthRun } from "./bfcl-episode";
import { bfclTags } from "./curriculum";
import { bfclDemonstration } from "./bfcl-demonstrations";
import { BfclConfigSchema, type BfclEnvironmentOptions } from "../../../lib/environment-options";

export { BfclConfigSchema, type BfclEnvironmentOptions };

interface BuiltinFile {
  funcDocs: { name: string; description: string; parameters: Record<string, unknown> }[];
  entries: { id: string; ground_truth: unknown }[];
}

function builtinTasks(): Task<BfclTaskData>[] {
  const url = new URL("./builtin-tasks.json", import.meta.url);
  const file = url.pathname;
  const raw = JSON.parse(readFileSync(url, "utf8")) as BuiltinFile;
  const byName = new Map(raw.funcDocs.map((d) => [d.name, d]));
  // Builtin docs are one flat list; each class gets the ones naming its methods.
  const docs = new Map<string, ToolSchema[]>(
    Object.entries(BFCL_API_CLASSES).map(([cls, entry]) => [
      cls,
      Object.keys(entry.create({}, { longContext: false }).methods).flatMap((m) => {
        const d = byName.get(m);
        return d ? [{ name: d.name, description: d.description, parameters: d.parameters }] : [];
      }),
    ]),
  );
  return raw.entries.map((e, i) => {
    const data = parseBfclEntry(e, e, { questions: file, answers: file }, i, docs);
    return { id: `bfcl-${data.entryId}`, split: "train", tags: [...bfclTags(data), "builtin"], data };
  });
}

export function createBfclEnvironment(config: BfclEnvironmentOptions | Record<string, unknown> = {}): Environment<BfclTaskData> {
  const parsed = BfclConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new Error(
      `Invalid bfcl environment config: ${parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ")}`,
    );
  }
  const { rewardMode, toolStyle, protocol } = parsed.data;
  const apis = parsed.data.apis ?? protocol;
  const builtin = builtinTasks();
  const gtCache = new Map<string, GroundTruthRun>();
  const groundTruthOf = (task: Task<BfclTaskData>): GroundTruthRun => {
    let gt = gtCache.get(task.id);
    if (!gt) gtCache.set(task.id, (gt = runGroundTruth(task.data, messagesOf(apis))));
    return gt;
  };
  return {
    name: "bfcl",
    description:
      "BFCL v4 multi-turn function calling (AWorld EnvTuning): user turns in order, calls executed on stateful " +
      "TypeScript ports of BFCL's API classes; reward from format, per-turn state/response checks against the " +
      "ground truth executed on fresh instances.",
    builtinTasks: () => builtin,
    async loadTasks(dir: string) {
      const { entries } = await loadBfclDataset(dir);
      return entries.map((data) => ({ id: `bfcl-${data.entryId}`, split: "train", tags: bfclTags(data), data }));
    },
    async demonstrations(tasks) {
      return tasks.flatMap((task) => bfclDemonstration(task, groundTruthOf(task), toolStyle, protocol) ?? []);
    },
    createEpisode(task, ctx) {
      return createBfclEpisode(task.data, ctx, {
        rewardMode,
        toolStyle,
        protocol,
        apis,
        groundTruth: () => groundTruthOf(task),
      });
    },
  };
}

export type { BfclTaskData } from "./bfcl-format";
export { loadBfclDataset } from "./bfcl-format";
export { BFCL_CURRICULUM_STAGES, selectStageTasks, bfclTags } from "./curriculum";
export { parsePythonCalls } from "./call-syntax";
