/**
 * Importer for τ²-bench domain folders (sierra-research/tau2-bench, `data/tau2/domains/<domain>/`):
 * `tasks.json` (user scenario + evaluation criteria), `db.json` (the domain database), `policy.md` (the agent's
 * policy) and optionally `split_tasks.json` ({split: [task ids]}). Only the fields the environment uses are kept;
 * a file that does not have them is rejected with a DatasetError naming the file and the record, because a silently
 * half-imported task would train on a reward that can never be reached.
 */
import { jsonErrorDetail, readDataFile, readErrorDetail } from "../../data-roots";
import { existsSync } from "node:fs";
import path from "node:path";
import { DatasetError } from "../types";
import { validateRetailDb, type RetailDb } from "./retail-db";

/** One expected tool call of the gold trajectory. */
export interface Tau2Action {
  actionId: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Argument names compared when matching; null means all of them (τ² `compare_args`). */
  compareArgs: string[] | null;
}

export type Tau2RewardComponent = "DB" | "COMMUNICATE" | "ACTION" | "NL_ASSERTION" | "ENV_ASSERTION";

export interface Tau2UserScenario {
  /** Persona / behaviour notes ("You are detail-oriented..."). */
  taskInstructions: string;
  reasonForCall: string;
  knownInfo: string;
  unknownInfo: string;
  persona: string | null;
}

export interface Tau2TaskData {
  /** Where the domain database comes from: the builtin mini-store or a τ² domain folder on this host. */
  domainSource: { kind: "builtin" } | { kind: "dir"; dir: string };
  taskId: string;
  scenario: Tau2UserScenario;
  actions: Tau2Action[];
  communicateInfo: string[];
  nlAssertions: string[];
  rewardBasis: Tau2RewardComponent[];
}

export interface Tau2Domain {
  db: RetailDb;
  policy: string;
  tasks: { id: string; split: string; data: Tau2TaskData }[];
}

const KNOWN_BASIS = new Set<Tau2RewardComponent>(["DB", "COMMUNICATE", "ACTION", "NL_ASSERTION", "ENV_ASSERTION"]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** τ² domains whose tools this environment implements. */
export const SUPPORTED_TAU2_DOMAINS = ["retail"];

/** Parses one τ² task record; `file` and `index` only serve the error message. */
export function parseTau2Task(raw: unknown, file: string, index: number, domainSource: Tau2TaskData["domainSource"]): Tau2TaskData {
  if (!isObject(raw)) throw new DatasetError(file, index, "a task must be a JSON object");
  const id = typeof raw.id === "string" || typeof raw.id === "number" ? String(raw.id) : null;
  if (id === null) throw new DatasetError(file, index, 'task has no "id"');
  const record = `${index} (id ${id})`;
  const scenario = raw.user_scenario;
  if (!isObject(scenario)) throw new DatasetError(file, record, '"user_scenario" must be an object');
  const instr = scenario.instructions;
  // τ² allows free-text instructions; the structured form is what its retail tasks use.
  const structured = isObject(instr) ? instr : { reason_for_call: str(instr) };
  // Only the retail tools are implemented: an airline or telecom task must not import against a retail database
  // (a do-nothing agent would then "solve" most of them, since nothing changes the database).
  const domain = str(structured.domain);
  if (domain && !SUPPORTED_TAU2_DOMAINS.includes(domain)) {
    throw new DatasetError(file, record, `domain "${domain}" is not supported; supported: ${SUPPORTED_TAU2_DOMAINS.join(", ")}`);
  }
  if (str(structured.reason_for_call) === "" && str(structured.task_instructions) === "") {
    throw new DatasetError(file, record, '"user_scenario.instructions" has neither reason_for_call nor task_instructions');
  }
  const crit = raw.evaluation_criteria;
  if (!isObject(crit)) throw new DatasetError(file, record, '"evaluation_criteria" must be an object');
  const rawActions = crit.actions ?? [];
  if (!Array.isArray(rawActions)) throw new DatasetError(file, record, '"evaluation_criteria.actions" must be a list');
  const actions = rawActions.map((a, j): Tau2Action => {
    if (!isObject(a) || typeof a.name !== "string" || a.name === "") {
      throw new DatasetError(file, record, `action ${j} has no "name"`);
    }
    if (a.arguments !== undefined && !isObject(a.arguments)) {
      throw new DatasetError(file, record, `action ${j} ("${a.name}") has non-object "arguments"`);
    }
    const compare = a.compare_args;
    if (compare !== undefined && compare !== null && !(Array.isArray(compare) && compare.every((c) => typeof c === "string"))) {
      throw new DatasetError(file, record, `action ${j} has a "compare_args" that is not a list of names`);
    }
    return {
      actionId: str(a.action_id) || `${id}_${j}`,
      name: a.name,
      arguments: (a.arguments as Record<string, unknown> | undefined) ?? {},
      compareArgs: Array.isArray(compare) ? (compare as string[]) : null,
    };
  });
  const stringList = (key: string): string[] => {
    const v = crit[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || !v.every((s) => typeof s === "string")) {
      throw new DatasetError(file, record, `"evaluation_criteria.${key}" must be a list of strings`);
    }
    return v as string[];
  };
  const basisRaw = crit.reward_basis ?? ["DB", "COMMUNICATE"];
  if (!Array.isArray(basisRaw) || basisRaw.some((b) => !KNOWN_BASIS.has(b as Tau2RewardComponent))) {
    throw new DatasetError(file, record, `"reward_basis" must list some of ${[...KNOWN_BASIS].join(", ")}`);
  }
  return {
    domainSource,
    taskId: id,
    scenario: {
      taskInstructions: str(structured.task_instructions),
      reasonForCall: str(structured.reason_for_call),
      knownInfo: str(structured.known_info),
      unknownInfo: str(structured.unknown_info),
      persona: typeof scenario.persona === "string" ? scenario.persona : null,
    },
    actions,
    communicateInfo: stringList("communicate_info"),
    nlAssertions: stringList("nl_assertions"),
    rewardBasis: basisRaw as Tau2RewardComponent[],
  };
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readDataFile(file);
  } catch (e) {
    throw new DatasetError(file, null, readErrorDetail(e));
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new DatasetError(file, null, jsonErrorDetail(e));
  }
}

/** Loads a τ² domain folder. Tasks not named in split_tasks.json get split "train". */
export async function loadTau2Domain(dir: string): Promise<Tau2Domain> {
  const tasksFile = path.join(dir, "tasks.json");
  const dbFile = path.join(dir, "db.json");
  const db = validateRetailDb(await readJson(dbFile), dbFile);
  const rawTasks = await readJson(tasksFile);
  if (!Array.isArray(rawTasks)) throw new DatasetError(tasksFile, null, "must be a JSON list of tasks");
  const policyFile = path.join(dir, "policy.md");
  const policy = existsSync(policyFile) ? await readDataFile(policyFile) : "";
  const splitOf = new Map<string, string>();
  const splitFile = path.join(dir, "split_tasks.json");
  if (existsSync(splitFile)) {
    const splits = await readJson(splitFile);
    if (!isObject(splits)) throw new DatasetError(splitFile, null, "must map split names to lists of task ids");
    for (const [split, ids] of Object.entries(splits)) {
      if (!Array.isArray(ids)) throw new DatasetError(splitFile, split, "must be a list of task ids");
      // "base" is τ²'s name for the full set; specific splits (train/test) take precedence over it.
      if (split === "base") continue;
      for (const id of ids) splitOf.set(String(id), split);
    }
  }
  const source = { kind: "dir" as const, dir: path.resolve(dir) };
  const tasks = rawTasks.map((t, i) => {
    const data = parseTau2Task(t, tasksFile, i, source);
    return { id: data.taskId, split: splitOf.get(data.taskId) ?? "train", data };
  });
  return { db, policy, tasks };
}
