/**
 * TauGym's tasks and the retail data they run on.
 *
 * A TauGym task file (UserRL `gyms/TauGym/taugym/data/tau_{train,test}.json`) is a JSON list of
 * `{id: "retail-000", obs: <the customer's first message>, info: {task: {user_id, actions, instruction, outputs}}}`:
 * tau-bench's tasks with the opening already written. The data they run on is tau-bench's retail data, found beside
 * the file in `retail/` and `airline/`: tau-bench's own files (tau_bench/envs/<domain>/data: users.json, orders.json,
 * products.json; flights.json, reservations.json, users.json). For retail, τ²-bench's retail db.json also serves (the
 * same records; τ² adds a user_id to each user, dropped here, and orders its keys differently, so printed records
 * differ in key order but never in content); τ²'s airline data differs from tau-bench's, so airline needs tau-bench's.
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
import { TAU_DOMAINS, TAU_DOMAIN_NAMES, type TauDomainName } from "./domains";
import type { TauData } from "./tool-core";

export type TauDataSource = { kind: "builtin" } | { kind: "dir"; dir: string };

export interface TauGymTask {
  taskId: string;
  domain: TauDomainName;
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

/** A domain's data in a folder: tau-bench's files, or (retail) τ²'s db.json. */
export function readTauData(dir: string, domain: TauDomainName): TauData {
  const read = (file: string) => {
    const full = path.join(dir, file);
    try {
      return parseJsonKeepingKeyOrder(readFileSync(full, "utf8"), { number: pythonJsonNumber });
    } catch (e) {
      throw new DatasetError(full, null, e instanceof SyntaxError ? jsonErrorDetail(e) : readErrorDetail(e));
    }
  };
  const tables = TAU_DOMAINS[domain].tables;
  if (tables.every((t) => existsSync(path.join(dir, `${t}.json`))))
    return Object.fromEntries(tables.map((t) => [t, read(`${t}.json`)])) as TauData;
  if (domain === "retail" && existsSync(path.join(dir, "db.json"))) return fromTau2Db(read("db.json"), path.join(dir, "db.json"));
  throw new DatasetError(
    dir,
    null,
    `no ${domain} data here: put tau-bench's ${tables.map((t) => `${t}.json`).join(", ")} (tau_bench/envs/${domain}/data) in this folder` +
      (domain === "retail" ? ", or τ²-bench's retail db.json" : ""),
  );
}

/** τ²'s retail database as tau-bench holds it: the same tables, without the user_id τ² adds to each user. */
export function fromTau2Db(raw: unknown, file: string): TauData {
  const db = raw as Partial<Record<string, Record<string, Record<string, unknown>>>>;
  if (!db || typeof db !== "object" || !db.users || !db.orders || !db.products)
    throw new DatasetError(file, null, "a retail database needs users, orders and products tables");
  for (const user of Object.values(db.users)) delete user.user_id;
  return { users: db.users, orders: db.orders, products: db.products };
}

/** Parses TauGym's task list; `dataDir` is the folder holding `retail/` and `airline/`. */
export function parseTauGymTasks(raw: unknown, file: string, dataDir: string): Task<TauGymTask>[] {
  if (!Array.isArray(raw)) throw new DatasetError(file, null, "a TauGym task file is a JSON list of {id, obs, info: {task}}");
  const tasks: Task<TauGymTask>[] = [];
  raw.forEach((r, i) => {
    const parsed = RawTask.safeParse(r);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new DatasetError(file, `record ${i}`, `${issue.path.join(".") || "record"}: ${issue.message}`);
    }
    const { id, obs, info } = parsed.data;
    const domain = TAU_DOMAIN_NAMES.find((d) => id.startsWith(d));
    if (!domain)
      throw new DatasetError(file, `record ${i}`, `id "${id}" names no tau-bench domain; supported: ${TAU_DOMAIN_NAMES.join(", ")}`);
    tasks.push({
      id: `taugym-${id}`,
      split: id.includes("-train-") ? "train" : "test",
      tags: ["userrl", "tau", domain],
      data: {
        taskId: id,
        domain,
        source: { kind: "dir", dir: path.join(dataDir, domain) },
        opening: obs,
        instruction: info.task.instruction,
        userId: info.task.user_id,
        actions: info.task.actions,
        outputs: info.task.outputs,
      },
    });
  });
  for (const domain of new Set(tasks.map((t) => t.data.domain))) {
    const dir = path.join(dataDir, domain);
    if (!existsSync(dir))
      throw new DatasetError(
        file,
        null,
        `its ${domain} tasks need tau-bench's ${domain} data in ${dir}: copy tau_bench/envs/${domain}/data there (${TAU_DOMAINS[domain].tables.map((t) => `${t}.json`).join(", ")})` +
          (domain === "retail" ? ", or τ²-bench's retail db.json" : ""),
      );
  }
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
    // Python's json keeps 100.0 a float: gold actions' amounts must compare and print as tau-bench's do.
    raw = parseJsonKeepingKeyOrder(text, { number: pythonJsonNumber });
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
export function builtinTauGym(): { data: TauData; tasks: Task<TauGymTask>[] } {
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
        domain: "retail",
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
