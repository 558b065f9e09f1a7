/**
 * What tau-bench's tools (sierra-research/tau-bench, the first τ-bench) share, for the retail and airline ports:
 * the data as plain JSON tables, a working copy per play whose records are copied before a tool changes them, Python's
 * number semantics where results are printed, `json.dumps` output, the call convention of its env.step, and the data
 * comparison its reward makes.
 */
import { cloneKeepingKeyOrder } from "../../../../lib/ordered-json";
import { NotJsonSerializableError, PyFloat, pythonFloatRepr, pythonJsonDumps, pythonRepr } from "../../../../lib/python-json";
import { PythonEvalError, tau2Calculate } from "../../../../lib/python-arithmetic";
import { pythonSignatureError } from "../../tau2/domain";

export type Rec = Record<string, unknown>;
/** A domain's data: tables of records by id (retail: users, orders, products; airline: flights, reservations, users). */
export type TauData = Record<string, Record<string, Rec>>;

/** A working copy: tables copied, records shared until a tool changes one (then copied, key order kept). */
export interface Work {
  tables: TauData;
  owned: Set<Rec>;
}

export function forkData(data: TauData): Work {
  return { tables: Object.fromEntries(Object.entries(data).map(([name, t]) => [name, { ...t }])), owned: new Set() };
}

/** The record `id` of `table`, copied first if this play has not changed it yet. */
export function own(w: Work, table: string, id: string): Rec {
  let r = w.tables[table][id];
  if (!w.owned.has(r)) {
    r = cloneKeepingKeyOrder(r);
    w.tables[table][id] = r;
    w.owned.add(r);
  }
  return r;
}

/** A new record (a booking): owned from the start. */
export function insert(w: Work, table: string, id: string, record: Rec): void {
  w.tables[table][id] = record;
  w.owned.add(record);
}

/** A number as Python holds it: PyFloat unwrapped. */
export const n = (v: unknown): number => (v instanceof PyFloat ? v.value : (v as number));
/** A Python float result: integral values keep printing as floats. */
export const float = (x: number): number | PyFloat => (Number.isInteger(x) ? new PyFloat(x) : x);
/** Whether Python holds v as a float (integral JSON floats are read as PyFloat; computed ones are made PyFloat). */
export const isFloat = (v: unknown): boolean => v instanceof PyFloat || (typeof v === "number" && !Number.isInteger(v));
/** Python's a + b (or a - b): a float when either is. */
export const pyAdd = (a: unknown, b: unknown, sign: 1 | -1 = 1): number | PyFloat => {
  const value = n(a) + sign * n(b);
  return isFloat(a) || isFloat(b) ? float(value) : value;
};

export const dumps = (v: unknown): string => {
  try {
    return pythonJsonDumps(v, "any");
  } catch (e) {
    if (e instanceof NotJsonSerializableError) return pythonRepr(v);
    throw e;
  }
};

/** tau-bench's calculate tool (the same in both domains). */
export function calculate(expression: string): string {
  if (![...expression].every((c) => "0123456789+-*/(). ".includes(c))) return "Error: invalid characters in expression";
  try {
    return tau2Calculate(expression);
  } catch (e) {
    if (e instanceof PythonEvalError) return `Error: ${e.message}`;
    throw e;
  }
}

/** Python's KeyError: `str(KeyError('x'))` is `'x'`, which env.step prints after "Error: ". */
export class PyKeyError extends Error {
  constructor(key: string) {
    super(`'${key}'`);
  }
}

export interface ToolSpec {
  params: string[];
  run(w: Work, a: Rec): string;
}

const className = (tool: string) => tool.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase());

/**
 * Runs a tool as tau-bench's env.step does: an unknown name gives "Unknown action <name>", arguments that do not fit
 * the signature give Python's TypeError, any other exception "Error: <message>".
 */
export function runTool(tools: Record<string, ToolSpec>, w: Work, name: string, args: Rec): string {
  const tool = Object.prototype.hasOwnProperty.call(tools, name) ? tools[name] : undefined;
  if (!tool) return `Unknown action ${name}`;
  const signature = pythonSignatureError(`${className(name)}.invoke()`, tool.params, args);
  if (signature) return `Error: ${signature}`;
  try {
    return tool.run(w, args);
  } catch (e) {
    return `Error: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** A record as Python's `==` would compare it (dict order ignored, 5 and 5.0 told apart as tau-bench's hash does). */
function canonical(v: unknown): string {
  const walk = (x: unknown): unknown => {
    if (x instanceof PyFloat) return { $float: pythonFloatRepr(x.value) };
    if (Array.isArray(x)) return x.map(walk);
    if (x !== null && typeof x === "object")
      return Object.fromEntries(
        Object.keys(x)
          .sort()
          .map((k) => [k, walk((x as Rec)[k])]),
      );
    return x;
  };
  return JSON.stringify(walk(v));
}

/**
 * Whether two working copies of the same data hold equal data (tau-bench compares hashes of the whole data). Both
 * share every record neither changed, so only the records either copied (or added) need comparing.
 */
export function sameData(a: Work, b: Work): boolean {
  for (const table of Object.keys(a.tables)) {
    const ids = new Set([...Object.keys(a.tables[table]), ...Object.keys(b.tables[table] ?? {})]);
    for (const id of ids) {
      const [x, y] = [a.tables[table][id], b.tables[table]?.[id]];
      if (x !== y && canonical(x) !== canonical(y)) return false;
    }
  }
  return true;
}
