/**
 * TauGym's tasks and the retail data they run on.
 *
 * A TauGym task file (UserRL `gyms/TauGym/taugym/data/tau_{train,test}.json`) is a JSON list of
 * `{id: "retail-000", obs: <the customer's first message>, info: {task: {user_id, actions, instruction, outputs}}}`:
 * tau-bench's tasks with the opening already written. The data they run on is tau-bench's retail data, found beside
 * the file in `retail/`: tau-bench's own files (users.json, orders.json, products.json, from
 * tau_bench/envs/retail/data) or τ²-bench's retail db.json (the same records; τ² adds a user_id to each user, dropped
 * here, and orders its keys differently, so printed records differ in key order but never in content).
 * Airline tasks are left out (tau-bench's airline tools are not ported) and said so.
 *
 * Without a file, the builtin tasks are the τ² environment's Harbor Goods tasks restated as TauGym tasks.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { jsonErrorDetail, readDataFile, readErrorDetail } from "../../../data-roots";
import { parseJsonKeepingKeyOrder } from "../../../../lib/ordered-json";
import { pythonJsonNumber } from "../../../../lib/python-json";
import { DatasetError, type Task } from "../../types";
import { openingMessage } from "../../tau2/offline-user";
import type { RetailData } from "./retail-tools";

export type TauDataSource = { kind: "builtin" } | { kind: "dir"; dir: string };

export interface TauGymTask {
  taskId: string;
  source: TauDataSource;
  /** The customer's first message (TauGym's `obs`). */
  opening: string;
  /** What the customer wants and knows (tau-bench's instruction): the user simulator's brief. */
  instruction: string;
  userId: string;
  /** The gold actions whose database the reward compares with (tool name and keyword arguments). */
  actions: { name: string; kwargs: Record<string, unknown> }[];
  /** What the agent must tell the customer (each must appear in one of its messages). */
  outputs: string[];
}

const RawTask = z.object({
  id: z.string().min(1),
  obs: z.string(),
  info: z.object({
    task: z.object({
      user_id: z.string(),
      actions: z.array(z.object({ name: z.string().min(1), kwargs: z.record(z.string(), z.unknown()) })),
      instruction: z.string().min(1),
      outputs: z.array(z.string()).default([]),
    }),
  }),
});

/** Whether a parsed JSON file is TauGym's task list. */
export function isTauGymFile(raw: unknown): boolean {
  return Array.isArray(raw) && raw.length > 0 && typeof raw[0] === "object" && raw[0] !== null && "obs" in raw[0] && "info" in raw[0];
}

/** The retail data of a folder: tau-bench's three files, or τ²'s db.json. */
export function readRetailData(dir: string): RetailData {
  const read = (file: string) => {
    const full = path.join(dir, file);
    try {
      return parseJsonKeepingKeyOrder(readFileSync(full, "utf8"), { number: pythonJsonNumber });
    } catch (e) {
      throw new DatasetError(full, null, e instanceof SyntaxError ? jsonErrorDetail(e) : readErrorDetail(e));
    }
  };
  if (existsSync(path.join(dir, "users.json"))) {
    return { users: read("users.json"), orders: read("orders.json"), products: read("products.json") } as RetailData;
  }
  if (existsSync(path.join(dir, "db.json"))) return fromTau2Db(read("db.json"), path.join(dir, "db.json"));
  throw new DatasetError(
    dir,
    null,
    "no retail data here: put tau-bench's users.json, orders.json and products.json (tau_bench/envs/retail/data) or τ²-bench's retail db.json in this folder",
  );
}

/** τ²'s retail database as tau-bench holds it: the same tables, without the user_id τ² adds to each user. */
export function fromTau2Db(raw: unknown, file: string): RetailData {
  const db = raw as Partial<RetailData>;
  if (!db || typeof db !== "object" || !db.users || !db.orders || !db.products)
    throw new DatasetError(file, null, "a retail database needs users, orders and products tables");
  for (const user of Object.values(db.users)) delete user.user_id;
  return db as RetailData;
}

/** Parses TauGym's task list; `dataDir` is the folder holding `retail/`. */
export function parseTauGymTasks(raw: unknown, file: string, dataDir: string): Task<TauGymTask>[] {
  if (!Array.isArray(raw)) throw new DatasetError(file, null, "a TauGym task file is a JSON list of {id, obs, info: {task}}");
  const retailDir = path.join(dataDir, "retail");
  const tasks: Task<TauGymTask>[] = [];
  let leftOut = 0;
  raw.forEach((r, i) => {
    const parsed = RawTask.safeParse(r);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new DatasetError(file, `record ${i}`, `${issue.path.join(".") || "record"}: ${issue.message}`);
    }
    const { id, obs, info } = parsed.data;
    if (!id.startsWith("retail")) {
      leftOut += 1;
      return;
    }
    const split = id.includes("-train-") ? "train" : "test";
    tasks.push({
      id: `taugym-${id}`,
      split,
      tags: ["userrl", "tau", "retail"],
      data: {
        taskId: id,
        source: { kind: "dir", dir: retailDir },
        opening: obs,
        instruction: info.task.instruction,
        userId: info.task.user_id,
        actions: info.task.actions,
        outputs: info.task.outputs,
      },
    });
  });
  if (leftOut > 0)
    console.warn(`[userrl-tau] left out ${leftOut} task(s) of ${file} that are not retail (tau-bench's airline tools are not ported)`);
  if (tasks.length > 0 && !existsSync(retailDir))
    throw new DatasetError(
      file,
      null,
      `its retail tasks need tau-bench's retail data in ${retailDir}: copy tau_bench/envs/retail/data there (users.json, orders.json, products.json), or τ²-bench's retail db.json`,
    );
  return tasks;
}

export async function loadTauGymTasks(target: string): Promise<Task<TauGymTask>[]> {
  const file = target.endsWith(".json") ? target : path.join(target, "tau_test.json");
  let text: string;
  try {
    text = await readDataFile(file);
  } catch (e) {
    throw new DatasetError(file, null, readErrorDetail(e));
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new DatasetError(file, null, jsonErrorDetail(e));
  }
  if (!isTauGymFile(raw)) throw new DatasetError(file, null, "not a TauGym task file: expected a JSON list of {id, obs, info: {task}}");
  return parseTauGymTasks(raw, file, path.dirname(file));
}

interface BuiltinTau2Task {
  id: string;
  user_scenario: { instructions: { task_instructions: string; reason_for_call: string; known_info: string } };
  evaluation_criteria: { actions: { name: string; arguments: Record<string, unknown> }[]; communicate_info?: string[] };
}

/** The τ² environment's builtin store and tasks, restated as TauGym tasks (instruction = known info + reason + manner). */
export function builtinTauGym(): { data: RetailData; tasks: Task<TauGymTask>[] } {
  const file = new URL("../../tau2/builtin-domain.json", import.meta.url);
  const raw = parseJsonKeepingKeyOrder(readFileSync(file, "utf8"), { number: pythonJsonNumber }) as {
    db: unknown;
    tasks: BuiltinTau2Task[];
  };
  const data = fromTau2Db(raw.db, file.pathname);
  const tasks = raw.tasks.map((t): Task<TauGymTask> => {
    const s = t.user_scenario.instructions;
    const scenario = {
      taskInstructions: s.task_instructions,
      reasonForCall: s.reason_for_call,
      knownInfo: s.known_info,
      unknownInfo: "",
      persona: null,
    };
    return {
      id: `taugym-builtin-${t.id}`,
      split: "train",
      tags: ["userrl", "tau", "retail", "builtin"],
      data: {
        taskId: t.id,
        source: { kind: "builtin" },
        opening: openingMessage(scenario),
        instruction: [s.known_info, s.reason_for_call, s.task_instructions].filter(Boolean).join(" "),
        userId: "",
        actions: t.evaluation_criteria.actions.map((a) => ({ name: a.name, kwargs: a.arguments })),
        outputs: t.evaluation_criteria.communicate_info ?? [],
      },
    };
  });
  return { data, tasks };
}
