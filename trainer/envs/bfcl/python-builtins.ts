/**
 * The Python built-ins a policy calls as if they were tools. gorilla's and EnvTuning's executors `eval` each call
 * string, so a name that is no API method but is a built-in runs: `round(number=3.14159, ndigits=2)` answers `3.14`,
 * `print()` `None`, `str(object=5)` `5` — and counts as a call that executed. These are the ones an untrained policy
 * reaches for; any other name is still "name '…' is not defined" (docs/environments/bfcl.md). Results and errors are
 * CPython 3.10+'s; ints and floats are told apart by value (BFCL's call parser does not keep `3.0` a float).
 */
import { pythonRepr, pythonRound } from "../../../lib/python-json";
import type { PyCall } from "./call-syntax";

export class BuiltinError extends Error {}

type Builtin = (positional: unknown[], keywords: Record<string, unknown>) => unknown;

const typeName = (v: unknown): string =>
  v === null
    ? "NoneType"
    : typeof v === "boolean"
      ? "bool"
      : typeof v === "number"
        ? Number.isInteger(v)
          ? "int"
          : "float"
        : typeof v === "string"
          ? "str"
          : Array.isArray(v)
            ? "list"
            : "dict";

/** str(x): a string as it is, anything else as its repr (what str() gives for BFCL's values). */
const asStr = (v: unknown): string => (typeof v === "string" ? v : pythonRepr(v));

function noKeywords(name: string, keywords: Record<string, unknown>): void {
  if (Object.keys(keywords).length) throw new BuiltinError(`${name}() takes no keyword arguments`);
}

function exactlyOne(name: string, positional: unknown[]): unknown {
  if (positional.length !== 1) throw new BuiltinError(`${name}() takes exactly one argument (${positional.length} given)`);
  return positional[0];
}

const BUILTINS: Record<string, Builtin> = {
  round(positional, keywords) {
    if (positional.length === 0 && !("number" in keywords)) throw new BuiltinError("round() missing required argument 'number' (pos 1)");
    for (const k of Object.keys(keywords))
      if (k !== "number" && k !== "ndigits") throw new BuiltinError(`round() got an unexpected keyword argument '${k}'`);
    if (positional.length > 2) throw new BuiltinError(`round() takes at most 2 arguments (${positional.length} given)`);
    if (positional.length >= 1 && "number" in keywords)
      throw new BuiltinError("argument for round() given by name ('number') and position (1)");
    if (positional.length >= 2 && "ndigits" in keywords)
      throw new BuiltinError("argument for round() given by name ('ndigits') and position (2)");
    const number = positional.length ? positional[0] : keywords.number;
    const ndigits = positional.length > 1 ? positional[1] : (keywords.ndigits ?? null);
    if (typeof number !== "number" && typeof number !== "boolean")
      throw new BuiltinError(`type ${typeName(number)} doesn't define __round__ method`);
    if (ndigits !== null && (typeof ndigits !== "number" || !Number.isInteger(ndigits)))
      throw new BuiltinError(`'${typeName(ndigits)}' object cannot be interpreted as an integer`);
    const x = Number(number);
    if (Number.isInteger(x)) return x; // an int rounds to itself (negative ndigits aside)
    if (ndigits === null) return pythonRound(x, 0); // an int (ties to even)
    return pythonRound(x, ndigits);
  },
  print(_positional, keywords) {
    for (const k of Object.keys(keywords))
      if (!["sep", "end", "file", "flush"].includes(k)) throw new BuiltinError(`'${k}' is an invalid keyword argument for print()`);
    return null; // what it writes goes to the executor's stdout, not to the policy
  },
  str(positional, keywords) {
    for (const k of Object.keys(keywords))
      if (!["object", "encoding", "errors"].includes(k)) throw new BuiltinError(`'${k}' is an invalid keyword argument for str()`);
    if (positional.length > 3) throw new BuiltinError(`str() takes at most 3 arguments (${positional.length} given)`);
    if (positional.length > 1 || "encoding" in keywords || "errors" in keywords)
      throw new BuiltinError(`decoding to str: need a bytes-like object, ${typeName(positional[0] ?? keywords.object)} found`);
    const v = positional.length ? positional[0] : "object" in keywords ? keywords.object : "";
    return asStr(v);
  },
  len(positional, keywords) {
    noKeywords("len", keywords);
    const v = exactlyOne("len", positional);
    if (typeof v === "string") return [...v].length;
    if (Array.isArray(v)) return v.length;
    if (v !== null && typeof v === "object") return Object.keys(v).length;
    throw new BuiltinError(`object of type '${typeName(v)}' has no len()`);
  },
  abs(positional, keywords) {
    noKeywords("abs", keywords);
    const v = exactlyOne("abs", positional);
    if (typeof v === "boolean") return v ? 1 : 0;
    if (typeof v !== "number") throw new BuiltinError(`bad operand type for abs(): '${typeName(v)}'`);
    return Math.abs(v);
  },
};

export const isPythonBuiltin = (name: string): boolean => Object.hasOwn(BUILTINS, name);

/** Runs a built-in as eval would; throws BuiltinError with CPython's message where Python raises. */
export function runPythonBuiltin(call: Pick<PyCall, "name" | "positional" | "keywords">): unknown {
  return BUILTINS[call.name](call.positional, call.keywords);
}
