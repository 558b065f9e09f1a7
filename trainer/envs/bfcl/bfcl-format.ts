/**
 * Importer for BFCL v4 multi-turn data (ShishirPatil/gorilla, berkeley-function-call-leaderboard/bfcl_eval/data):
 * - `BFCL_v4_multi_turn_<category>.json`: JSON lines {id, question: user turns (each a list of messages),
 *   initial_config: {Class: state}, involved_classes, excluded_function?}
 * - `possible_answer/<same name>`: JSON lines {id, ground_truth: per turn, a list of Python call strings}
 * - `func_doc/<class file>.json` (gorilla's folder: `multi_turn_func_doc/`): JSON lines, one function description
 *   per line (BFCL's own type names).
 * Categories: multi_turn_base, miss_param (turns whose ground truth is empty: the model should ask), miss_func
 * (functions held back until a turn) and long_context (the API classes' state extended with gorilla's long-context
 * data, apis/long-context.ts); others (composite, memory, web search) are refused by name.
 * Every record is checked (and every ground-truth call parsed) at import; problems raise DatasetError naming the
 * file and the entry id.
 */
import { readdir, stat } from "node:fs/promises";
import { jsonErrorDetail, readDataFile, readErrorDetail } from "../../data-roots";
import path from "node:path";
import { DatasetError } from "../types";
import { parseJsonKeepingKeyOrder } from "../../../lib/ordered-json";
import type { ToolSchema } from "../parse";
import { BFCL_API_CLASSES } from "./apis";
import { CallSyntaxError, parsePythonCalls } from "./call-syntax";
import { pythonRepr } from "../../../lib/python-json";

export interface BfclTaskData {
  entryId: string;
  /** e.g. "multi_turn_base", "multi_turn_miss_param" (BFCL test category, from the id). */
  category: string;
  /** User turns in order; each is the list of user messages of that turn. */
  turns: { role: string; content: string }[][];
  initialConfig: Record<string, unknown>;
  involvedClasses: string[];
  /** Per turn, the ground-truth calls in Python syntax. */
  groundTruth: string[][];
  /** Tools shown to the policy from the start (func docs of the involved classes minus excluded and held-back ones). */
  tools: ToolSchema[];
  /**
   * miss_func: functions held back until a turn (gorilla's `missed_function`), by turn index. That turn's user
   * message is gorilla's: the functions' docs, then "I have updated some more functions you can choose from. What
   * about now?" (already placed in `turns`).
   */
  revealedTools?: Record<number, ToolSchema[]>;
}

/** The categories whose mechanics are implemented; others are refused by name. */
export const SUPPORTED_BFCL_CATEGORIES = [
  "multi_turn_base",
  "multi_turn_miss_param",
  "multi_turn_miss_func",
  "multi_turn_long_context",
] as const;

/** gorilla's user message for a turn that reveals held-back functions (its prompting mode, `{functions}` = str(docs)). */
export const ADDITIONAL_FUNCTIONS_PROMPT = "I have updated some more functions you can choose from. What about now?";

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

async function readJsonLines(file: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readDataFile(file);
  } catch (e) {
    throw new DatasetError(file, null, readErrorDetail(e));
  }
  const out: unknown[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      // Python's json keeps a dict's key order as written; so must the API ports (TradingBot lists its order ids).
      out.push(parseJsonKeepingKeyOrder(line));
    } catch (e) {
      throw new DatasetError(file, `line ${i + 1}`, jsonErrorDetail(e));
    }
  });
  return out;
}

/** BFCL's parameter types are Python-flavoured ("dict", "float", "any"); the policy sees JSON Schema. */
function toJsonSchema(p: unknown): unknown {
  if (Array.isArray(p)) return p.map(toJsonSchema);
  if (!isObject(p)) return p;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p)) {
    if (k === "type" && typeof v === "string") {
      const map: Record<string, string> = { dict: "object", float: "number", integer: "integer", tuple: "array", any: "string" };
      out.type = map[v] ?? v;
    } else out[k] = toJsonSchema(v);
  }
  return out;
}

/** A function's doc as the policy sees it, and as gorilla's func_doc file has it (for the reveal message). */
export type FuncDocs = Map<string, ToolSchema[]> & { raw?: Map<string, unknown> };

/** Reads func_doc files for the given classes (cached per directory by the caller). */
export async function loadFuncDocs(funcDocDir: string, classes: string[]): Promise<FuncDocs> {
  const docs: FuncDocs = new Map<string, ToolSchema[]>();
  docs.raw = new Map();
  for (const cls of classes) {
    const entry = BFCL_API_CLASSES[cls];
    if (!entry) continue;
    const file = path.join(funcDocDir, entry.funcDocFile);
    const rows = await readJsonLines(file);
    docs.set(
      cls,
      rows.map((r, i) => {
        if (!isObject(r) || typeof r.name !== "string" || !isObject(r.parameters)) {
          throw new DatasetError(file, `line ${i + 1}`, "a function description needs a name and parameters");
        }
        docs.raw!.set(r.name, r);
        return {
          name: r.name,
          description: String(r.description ?? ""),
          parameters: toJsonSchema(r.parameters) as Record<string, unknown>,
        };
      }),
    );
  }
  return docs;
}

export function categoryOf(entryId: string): string {
  const m = /^(.*)_\d+$/.exec(entryId);
  return m ? m[1] : entryId;
}

/** Validates one question record + its ground truth; `docs` supplies the tools. */
export function parseBfclEntry(
  raw: unknown,
  gt: unknown,
  files: { questions: string; answers: string },
  index: number,
  docs: FuncDocs,
): BfclTaskData {
  if (!isObject(raw) || typeof raw.id !== "string") throw new DatasetError(files.questions, index, 'an entry needs a string "id"');
  const id = raw.id;
  const q = raw.question;
  if (!Array.isArray(q) || q.length === 0) throw new DatasetError(files.questions, id, '"question" must be a non-empty list of turns');
  const turns = q.map((turn, t) => {
    if (!Array.isArray(turn) || !turn.every((m) => isObject(m) && typeof m.role === "string" && typeof m.content === "string")) {
      throw new DatasetError(files.questions, id, `turn ${t} must be a list of {role, content} messages`);
    }
    return turn.map((m) => ({ role: String(m.role), content: String(m.content) }));
  });
  if (!isObject(raw.initial_config)) throw new DatasetError(files.questions, id, '"initial_config" must be an object keyed by class name');
  const classes = raw.involved_classes;
  if (!Array.isArray(classes) || !classes.every((c) => typeof c === "string")) {
    throw new DatasetError(files.questions, id, '"involved_classes" must be a list of class names');
  }
  const excluded = Array.isArray(raw.excluded_function) ? raw.excluded_function.map(String) : [];
  if (!isObject(gt) || !Array.isArray(gt.ground_truth)) throw new DatasetError(files.answers, id, "no ground_truth for this id");
  const groundTruth = gt.ground_truth.map((turn, t) => {
    if (!Array.isArray(turn) || !turn.every((c) => typeof c === "string")) {
      throw new DatasetError(files.answers, id, `ground_truth turn ${t} must be a list of call strings`);
    }
    for (const c of turn) {
      try {
        parsePythonCalls(c);
      } catch (e) {
        throw new DatasetError(
          files.answers,
          id,
          `ground_truth turn ${t}: cannot parse "${c}": ${e instanceof CallSyntaxError ? e.message : String(e)}`,
        );
      }
    }
    return turn as string[];
  });
  if (groundTruth.length !== turns.length) {
    throw new DatasetError(files.answers, id, `ground_truth has ${groundTruth.length} turns but the question has ${turns.length}`);
  }
  const available = (classes as string[]).flatMap((c) => docs.get(c) ?? []).filter((t) => !excluded.includes(t.name));
  // miss_func: gorilla removes each held-back function from the list and shows it, in its own message, at its turn.
  const revealedTools: Record<number, ToolSchema[]> = {};
  const missed = raw.missed_function;
  if (missed !== undefined) {
    if (!isObject(missed)) throw new DatasetError(files.questions, id, '"missed_function" must map turn indexes to function names');
    for (const [turnKey, names] of Object.entries(missed)) {
      const t = Number(turnKey);
      if (!Number.isInteger(t) || t < 0 || t >= turns.length || !Array.isArray(names)) {
        throw new DatasetError(
          files.questions,
          id,
          `"missed_function" turn "${turnKey}" must be a turn index with a list of function names`,
        );
      }
      if (turns[t].length > 0)
        throw new DatasetError(files.questions, id, `turn ${t} reveals functions, so its question must be empty (as gorilla requires)`);
      const held = names.map((n) => available.find((tool) => tool.name === n) ?? null);
      const unknown = names.filter((_, i) => held[i] === null);
      if (unknown.length) throw new DatasetError(files.questions, id, `"missed_function" names unknown functions: ${unknown.join(", ")}`);
      revealedTools[t] = held as ToolSchema[];
      const rawDocs = names.map((n) => docs.raw?.get(String(n)) ?? held[names.indexOf(n)]);
      turns[t] = [{ role: "user", content: `${pythonRepr(rawDocs)}\n${ADDITIONAL_FUNCTIONS_PROMPT}` }];
    }
  }
  const heldBack = new Set(
    Object.values(revealedTools)
      .flat()
      .map((t) => t.name),
  );
  const tools = available.filter((t) => !heldBack.has(t.name));
  const data: BfclTaskData = {
    entryId: id,
    category: categoryOf(id),
    turns,
    initialConfig: raw.initial_config,
    involvedClasses: classes as string[],
    groundTruth,
    tools,
  };
  if (Object.keys(revealedTools).length) data.revealedTools = revealedTools;
  return data;
}

export interface BfclImport {
  entries: BfclTaskData[];
  /** Entries left out because they involve a class not implemented here (id -> classes). */
  skipped: { id: string; classes: string[] }[];
}

/** Loads a BFCL data folder (or one questions file whose folder holds possible_answer/ and func_doc/). */
export async function loadBfclDataset(target: string): Promise<BfclImport> {
  const isFile = (await stat(target).catch(() => null))?.isFile() ?? false;
  const dir = isFile ? path.dirname(target) : target;
  const names = isFile
    ? [path.basename(target)]
    : (await readdir(dir).catch(() => [] as string[])).filter((n) => /^BFCL_v\d+_multi_turn_.+\.json$/.test(n)).sort();
  if (names.length === 0) throw new DatasetError(dir, null, "no BFCL_v*_multi_turn_*.json question file found");
  // Refuse an unsupported category first, before any other complaint about the folder.
  for (const name of names) {
    const category = /^BFCL_v\d+_(multi_turn_.+)\.json$/.exec(name)?.[1] ?? name;
    if (!(SUPPORTED_BFCL_CATEGORIES as readonly string[]).includes(category)) {
      throw new DatasetError(
        path.join(dir, name),
        null,
        `category "${category}" is not supported; supported: ${SUPPORTED_BFCL_CATEGORIES.join(", ")} (import those files one by one)`,
      );
    }
  }
  // gorilla's own data folder names it multi_turn_func_doc; the shared data set, func_doc.
  const gorillaDocs = path.join(dir, "multi_turn_func_doc");
  const docDir = (await stat(gorillaDocs).catch(() => null))?.isDirectory() ? gorillaDocs : path.join(dir, "func_doc");
  const docs = await loadFuncDocs(docDir, Object.keys(BFCL_API_CLASSES));
  const out: BfclImport = { entries: [], skipped: [] };
  for (const name of names) {
    const files = { questions: path.join(dir, name), answers: path.join(dir, "possible_answer", name) };
    const questions = await readJsonLines(files.questions);
    const answers = new Map<string, unknown>();
    for (const a of await readJsonLines(files.answers)) if (isObject(a) && typeof a.id === "string") answers.set(a.id, a);
    questions.forEach((raw, i) => {
      const id = isObject(raw) && typeof raw.id === "string" ? raw.id : null;
      const classes = isObject(raw) && Array.isArray(raw.involved_classes) ? raw.involved_classes.map(String) : [];
      const missing = classes.filter((c) => !(c in BFCL_API_CLASSES));
      if (id !== null && missing.length > 0) {
        out.skipped.push({ id, classes: missing });
        return;
      }
      out.entries.push(parseBfclEntry(raw, id === null ? undefined : answers.get(id), files, i, docs));
    });
  }
  return out;
}
