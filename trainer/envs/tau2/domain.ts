/**
 * What a τ²-bench domain supplies to the episode, the reward and the importer: its database (validated from
 * db.json, copied per episode), its agent tools (run as τ²'s run them, results printed as τ² prints them), τ²'s
 * database hash, the records a run changed (for the DB check and the inspector's diff), τ²'s `update_db` for a
 * task's initialization data, and its assertion functions (ENV_ASSERTION). Retail and mock implement it
 * (retail-domain.ts, mock-domain.ts); the domain of a folder is recognised by its db.json's tables.
 */
import type { ToolSchema } from "../parse";
import { DatasetError } from "../types";

export interface ToolOutcome {
  ok: boolean;
  /** What the agent sees: τ²'s printed result, or "Error: ..." on failure. */
  content: string;
  wrote: boolean;
}

export interface DbComparison {
  same: boolean;
  finalHash: string;
  expectedHash: string;
  /** The records that differ or were touched, for the inspector's diff. */
  finalState: unknown;
  expectedState: unknown;
}

export interface Tau2DomainTools<Db = unknown, Work = unknown> {
  name: string;
  /** The agent's role, the system prompt's first line. */
  agentRole: string;
  toolSchemas: readonly ToolSchema[];
  validateDb(raw: unknown, file: string): Db;
  /** A private copy for one episode (or one gold replay). */
  fork(db: Db): Work;
  runTool(w: Work, name: string, args: Record<string, unknown>): ToolOutcome;
  /** Whether a tool changes the database (τ² replays only those from a task's message history). */
  isWriteTool(name: string): boolean;
  /** τ²'s get_db_hash: sha256 of json.dumps(model_dump(), sort_keys=True). */
  hash(w: Work): string;
  compare(final: Work, expected: Work): DbComparison;
  /** τ²'s update_db(initialization_data.agent_data): a deep merge of the data into the copy. */
  initialize(w: Work, data: unknown): void;
  /** τ²'s assertion functions (assert_*), for ENV_ASSERTION; absent when the domain has none. */
  assertion?(w: Work, funcName: string, args: Record<string, unknown>): boolean;
}

/** Deep merge as τ²'s update_db does it (addict's Dict.update): nested objects merge, everything else replaces. */
export function deepMerge(target: Record<string, unknown>, update: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(update)) {
    const current = target[k];
    if (isObject(v) && isObject(current)) deepMerge(current, v);
    else target[k] = structuredClone(v);
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The domain a db.json belongs to, from its tables; a clear error naming what is supported otherwise. */
export function domainOfDb<D extends { name: string; tables: readonly string[] }>(raw: unknown, file: string, domains: readonly D[]): D {
  const tables = isObject(raw) ? Object.keys(raw) : [];
  const found = domains.find((d) => d.tables.every((t) => tables.includes(t)) && tables.every((t) => d.tables.includes(t)));
  if (!found) {
    throw new DatasetError(
      file,
      null,
      `a database with tables ${JSON.stringify(tables)} belongs to no supported τ² domain; supported: ${domains.map((d) => `${d.name} (${d.tables.join(", ")})`).join("; ")}`,
    );
  }
  return found;
}

/**
 * Python's TypeError for a call whose keyword arguments do not fit the signature (unexpected ones first), as τ²'s
 * tools raise it: `params` in signature order, `optional` those with a default.
 */
export function pythonSignatureError(
  qualname: string,
  params: readonly string[],
  args: Record<string, unknown>,
  optional: readonly string[] = [],
): string | null {
  const unexpected = Object.keys(args).find((k) => !params.includes(k));
  if (unexpected !== undefined) return `${qualname} got an unexpected keyword argument '${unexpected}'`;
  const missing = params.filter((p) => !(p in args) && !optional.includes(p)).map((p) => `'${p}'`);
  if (missing.length === 0) return null;
  const list =
    missing.length === 1
      ? missing[0]
      : missing.length === 2
        ? missing.join(" and ")
        : `${missing.slice(0, -1).join(", ")}, and ${missing.at(-1)}`;
  return `${qualname} missing ${missing.length} required positional argument${missing.length > 1 ? "s" : ""}: ${list}`;
}
