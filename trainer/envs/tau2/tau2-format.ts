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
import { loadDomainDb } from "./domains";
import { parseJsonKeepingKeyOrder } from "../../../lib/ordered-json";

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

/** A message of a task's initial conversation (τ²'s `initial_state.message_history`). */
export interface Tau2HistoryMessage {
  role: "user" | "assistant" | "tool";
  content: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
  /** For a tool message: the call it answers. */
  toolCallId?: string;
}

/** Where a task starts from (τ²'s `initial_state`), on the agent's side of the environment. */
export interface Tau2InitialState {
  /** Merged into the database first (`initialization_data.agent_data`). */
  agentData: Record<string, unknown> | null;
  /** Tool calls run on the database next (`initialization_actions`). */
  actions: { funcName: string; arguments: Record<string, unknown> }[];
  /** A conversation already under way: shown to the agent; its write calls are replayed on the database. */
  history: Tau2HistoryMessage[];
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
  initialState?: Tau2InitialState;
  /** Assertion functions run on the final database (ENV_ASSERTION), each expecting `assertValue`. */
  envAssertions?: { funcName: string; arguments: Record<string, unknown>; assertValue: boolean }[];
}

export interface Tau2Domain {
  /** The τ² domain (retail, airline, mock), recognised from the database's tables. */
  domain: string;
  db: unknown;
  policy: string;
  tasks: { id: string; split: string; data: Tau2TaskData }[];
  /** Tasks left out because they need what is not implemented, each with the reason (said, never silent). */
  skipped: { id: string; reason: string }[];
}

const KNOWN_BASIS = new Set<Tau2RewardComponent>(["DB", "COMMUNICATE", "ACTION", "NL_ASSERTION", "ENV_ASSERTION"]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** A well-formed task that needs something this environment does not implement (the user's own tools). */
export class UnsupportedTaskError extends DatasetError {}

/** τ² domains whose tools this environment implements. */
export const SUPPORTED_TAU2_DOMAINS = ["retail", "airline", "mock"];

/** Parses one τ² task record; `file` and `index` only serve the error message. */
export function parseTau2Task(
  raw: unknown,
  file: string,
  index: number,
  domainSource: Tau2TaskData["domainSource"],
  dbDomain = "retail",
): Tau2TaskData {
  if (!isObject(raw)) throw new DatasetError(file, index, "a task must be a JSON object");
  const id = typeof raw.id === "string" || typeof raw.id === "number" ? String(raw.id) : null;
  if (id === null) throw new DatasetError(file, index, 'task has no "id"');
  const record = `${index} (id ${id})`;
  const scenario = raw.user_scenario;
  if (!isObject(scenario)) throw new DatasetError(file, record, '"user_scenario" must be an object');
  const instr = scenario.instructions;
  // τ² allows free-text instructions; the structured form is what its retail tasks use.
  const structured = isObject(instr) ? instr : { reason_for_call: str(instr) };
  // A task must play against its own domain's tools and database: an airline task beside a retail database would
  // be "solved" by a do-nothing agent, since nothing it could do changes that database.
  const domain = str(structured.domain);
  if (domain && !SUPPORTED_TAU2_DOMAINS.includes(domain)) {
    throw new DatasetError(file, record, `domain "${domain}" is not supported; supported: ${SUPPORTED_TAU2_DOMAINS.join(", ")}`);
  }
  if (domain && domain !== dbDomain) {
    throw new DatasetError(
      file,
      record,
      `a task of domain "${domain}" beside a ${dbDomain} database; put it in a folder with the ${domain} domain's db.json`,
    );
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
  const unsupported = (what: string) =>
    new UnsupportedTaskError(file, record, `${what}: the user's own tools (τ²'s user environment) are not supported`);
  const envCall = (c: unknown, where: string) => {
    if (!isObject(c) || typeof c.func_name !== "string" || (c.arguments !== undefined && !isObject(c.arguments))) {
      throw new DatasetError(file, record, `${where} needs a "func_name" and object "arguments"`);
    }
    if (c.env_type === "user") throw unsupported(`${where} runs ${c.func_name} on the user's side`);
    return { funcName: c.func_name, arguments: (c.arguments as Record<string, unknown> | undefined) ?? {} };
  };
  const envAssertions = (Array.isArray(crit.env_assertions) ? crit.env_assertions : []).map((a, j) => ({
    ...envCall(a, `env_assertions[${j}]`),
    assertValue: isObject(a) && a.assert_value === false ? false : true,
  }));
  const initialState = parseInitialState(raw.initial_state, envCall, (m) => new DatasetError(file, record, m), unsupported);
  return {
    domainSource,
    taskId: id,
    ...(initialState && { initialState }),
    ...(envAssertions.length && { envAssertions }),
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

function parseInitialState(
  raw: unknown,
  envCall: (c: unknown, where: string) => { funcName: string; arguments: Record<string, unknown> },
  bad: (message: string) => Error,
  unsupported: (what: string) => Error,
): Tau2InitialState | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw bad('"initial_state" must be an object');
  const data = isObject(raw.initialization_data) ? raw.initialization_data : null;
  if (data && data.user_data !== undefined && data.user_data !== null) throw unsupported("initialization_data.user_data");
  const agentData = data && isObject(data.agent_data) ? data.agent_data : null;
  const actions = (Array.isArray(raw.initialization_actions) ? raw.initialization_actions : []).map((a, j) =>
    envCall(a, `initialization_actions[${j}]`),
  );
  const history = (Array.isArray(raw.message_history) ? raw.message_history : []).map((m, j): Tau2HistoryMessage => {
    if (!isObject(m) || (m.role !== "user" && m.role !== "assistant" && m.role !== "tool"))
      throw bad(`message_history[${j}] needs a role of user, assistant or tool`);
    const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
    if (m.role === "user" && calls.length) throw unsupported(`message_history[${j}] has the user calling tools`);
    return {
      role: m.role,
      content: str(m.content),
      ...(calls.length && {
        toolCalls: calls.map((c, k) => {
          if (!isObject(c) || typeof c.name !== "string") throw bad(`message_history[${j}].tool_calls[${k}] needs a name`);
          return { id: str(c.id) || `history_${j}_${k}`, name: c.name, arguments: isObject(c.arguments) ? c.arguments : {} };
        }),
      }),
      ...(m.role === "tool" && { toolCallId: str(m.id) }),
    };
  });
  if (!agentData && actions.length === 0 && history.length === 0) return undefined;
  return { agentData, actions, history };
}

async function readJson(file: string, keepKeyOrder = false): Promise<unknown> {
  let text: string;
  try {
    text = await readDataFile(file);
  } catch (e) {
    throw new DatasetError(file, null, readErrorDetail(e));
  }
  try {
    return keepKeyOrder ? parseJsonKeepingKeyOrder(text) : JSON.parse(text);
  } catch (e) {
    throw new DatasetError(file, null, jsonErrorDetail(e));
  }
}

/** Loads a τ² domain folder. Tasks not named in split_tasks.json get split "train". */
export async function loadTau2Domain(dir: string): Promise<Tau2Domain> {
  const tasksFile = path.join(dir, "tasks.json");
  const dbFile = path.join(dir, "db.json");
  // Key order kept: τ² lists records (a product's variants) to the agent in db.json's order.
  const { tools, db } = loadDomainDb(await readJson(dbFile, true), dbFile);
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
  const tasks: Tau2Domain["tasks"] = [];
  const skipped: Tau2Domain["skipped"] = [];
  rawTasks.forEach((t, i) => {
    try {
      const data = parseTau2Task(t, tasksFile, i, source, tools.name);
      tasks.push({ id: data.taskId, split: splitOf.get(data.taskId) ?? "train", data });
    } catch (e) {
      if (!(e instanceof UnsupportedTaskError)) throw e;
      skipped.push({ id: isObject(t) ? String(t.id) : String(i), reason: e.message });
    }
  });
  return { domain: tools.name, db, policy, tasks, skipped };
}
