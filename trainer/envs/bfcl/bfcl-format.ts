/**
 * Importer for BFCL v4 multi-turn data (ShishirPatil/gorilla, berkeley-function-call-leaderboard/bfcl_eval/data):
 * - `BFCL_v4_multi_turn_<category>.json`: JSON lines {id, question: user turns (each a list of messages),
 *   initial_config: {Class: state}, involved_classes, excluded_function?}
 * - `possible_answer/<same name>`: JSON lines {id, ground_truth: per turn, a list of Python call strings}
 * - `func_doc/<class file>.json`: JSON lines, one function description per line (BFCL's own type names).
 * Every record is checked (and every ground-truth call parsed) at import; problems raise DatasetError naming the
 * file and the entry id.
 */
import { readdir, stat } from "node:fs/promises";
import { jsonErrorDetail, readDataFile, readErrorDetail } from "../../data-roots";
import path from "node:path";
import { DatasetError } from "../types";
import type { ToolSchema } from "../parse";
import { BFCL_API_CLASSES } from "./apis";
import { CallSyntaxError, parsePythonCalls } from "./call-syntax";

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
  /** Tools shown to the policy (func docs of the involved classes minus excluded functions). */
  tools: ToolSchema[];
}

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
      out.push(JSON.parse(line));
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

/** Reads func_doc files for the given classes (cached per directory by the caller). */
export async function loadFuncDocs(funcDocDir: string, classes: string[]): Promise<Map<string, ToolSchema[]>> {
  const docs = new Map<string, ToolSchema[]>();
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
        return { name: r.name, description: String(r.description ?? ""), parameters: toJsonSchema(r.parameters) as Record<string, unknown> };
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
  docs: Map<string, ToolSchema[]>,
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
        throw new DatasetError(files.answers, id, `ground_truth turn ${t}: cannot parse "${c}": ${e instanceof CallSyntaxError ? e.message : String(e)}`);
      }
    }
    return turn as string[];
  });
  if (groundTruth.length !== turns.length) {
    throw new DatasetError(files.answers, id, `ground_truth has ${groundTruth.length} turns but the question has ${turns.length}`);
  }
  const tools = (classes as string[]).flatMap((c) => docs.get(c) ?? []).filter((t) => !excluded.includes(t.name));
  return { entryId: id, category: categoryOf(id), turns, initialConfig: raw.initial_config, involvedClasses: classes as string[], groundTruth, tools };
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
  const docs = await loadFuncDocs(path.join(dir, "func_doc"), Object.keys(BFCL_API_CLASSES));
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
