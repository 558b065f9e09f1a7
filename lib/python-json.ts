/**
 * Python's `json.dumps` and `round`, byte for byte, for values whose Python types a schema gives.
 *
 * Systems written in Python (τ²-bench above all) hash `json.dumps(model.model_dump(), sort_keys=True)` and show the
 * agent `json.dumps(...)` of tool results. JavaScript loses the int/float distinction (`54.0` parses to 54) and
 * formats floats, separators and non-ASCII text differently, so reproducing those strings needs the declared
 * type of every number: a `PyType` schema, written once per pydantic model.
 */
import { pythonKeyOrder } from "./ordered-json";

/** A value that is a float in Python whatever its digits: prints as `37.0`, never `37`. */
export class PyFloat {
  constructor(readonly value: number) {}
}
export const pyFloat = (value: number): PyFloat => new PyFloat(value);

/** A JSON number as Python's json module reads it: a literal with a fraction or exponent is a float even when integral. */
export function pythonJsonNumber(literal: string): number | PyFloat {
  const value = Number(literal);
  return /[.eE]/.test(literal) && Number.isInteger(value) ? new PyFloat(value) : value;
}

/** A Python object json.dumps cannot serialize (an mpmath mpf, a Decimal): `repr` is what str() shows of it. */
export class PyOpaque {
  constructor(readonly repr: string) {}
}

/** json.dumps met a value it cannot serialize (Python's TypeError "Object of type … is not JSON serializable"). */
export class NotJsonSerializableError extends Error {}

/** A pydantic field type. `model` fields are dumped in declaration order, every field present (null when unset). */
export type PyType =
  | "str"
  | "int"
  | "float"
  | "bool"
  | "any"
  | { list: PyType }
  | { dict: PyType }
  | { optional: PyType }
  | { model: PyModel }
  | { union: (value: Record<string, unknown>) => PyModel };

export interface PyModel {
  name: string;
  fields: readonly (readonly [string, PyType])[];
}

/** `repr(float)`: the shortest round-tripping digits, as JavaScript finds them, in Python's layout. */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, expText] = x.toExponential().split("e");
  const exp = Number(expText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  let body: string;
  if (exp >= -4 && exp < 16) {
    // Python prints positional notation for 1e-4 <= |x| < 1e16 and always keeps a fractional part.
    if (exp < 0) body = `0.${"0".repeat(-exp - 1)}${digits}`;
    else if (digits.length <= exp + 1) body = `${digits}${"0".repeat(exp + 1 - digits.length)}.0`;
    else body = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  } else {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : "";
    body = `${digits[0]}${frac}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return negative ? `-${body}` : body;
}

/**
 * `round(x, ndigits)` for a float: the decimal nearest to x's exact binary value, ties to even. `toFixed` already
 * rounds the exact value; it only differs on exact ties, where it rounds away from zero.
 */
export function pythonRound(x: number, ndigits: number): number {
  if (!Number.isFinite(x)) return x;
  // CPython's float.__round__: beyond these bounds x comes back unchanged, or as a zero of its sign.
  if (ndigits > 323) return x;
  if (ndigits < -308) return 0 * x;
  if (ndigits < 0 || ndigits > 100) return exactRound(x, ndigits);
  // x*10^n ends in exactly .5 only when x = odd / 2^(n+1); anything else toFixed rounds correctly already.
  const halves = x * 2 ** (ndigits + 1);
  if (Number.isInteger(halves) && Math.abs(halves % 2) === 1) {
    const scale = 10 ** ndigits;
    const floor = Math.floor(x * scale);
    return (floor % 2 === 0 ? floor : floor + 1) / scale;
  }
  const rounded = Number(x.toFixed(ndigits));
  return rounded === 0 && (x < 0 || Object.is(x, -0)) ? -0 : rounded; // Python keeps the sign: round(-0.001, 2) == -0.0
}

/** x = mantissa × 2^exponent exactly (mantissa a non-negative integer), and its sign. */
function decompose(x: number): { negative: boolean; mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  return {
    negative: bits >> 63n === 1n,
    mantissa: biased === 0 ? fraction : fraction | (1n << 52n),
    exponent: (biased === 0 ? 1 : biased) - 1075,
  };
}

/** round(x, ndigits) on x's exact binary value (any ndigits, negative ones included), ties to even. */
function exactRound(x: number, ndigits: number): number {
  const { negative, mantissa, exponent } = decompose(x);
  const pow10 = 10n ** BigInt(Math.abs(ndigits));
  let num = mantissa * (exponent > 0 ? 1n << BigInt(exponent) : 1n);
  let den = exponent < 0 ? 1n << BigInt(-exponent) : 1n;
  if (ndigits >= 0) num *= pow10;
  else den *= pow10;
  let q = num / den;
  const twice = 2n * (num - q * den);
  if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
  // The decimal q × 10^-ndigits back to the nearest double (JavaScript parses decimals correctly rounded).
  const value = Number(`${q}e${-ndigits}`);
  return negative ? -value : value;
}

/**
 * A JSON string literal as Python writes it: with ensure_ascii (the default) everything outside space..tilde is
 * escaped; without it only quotes, backslashes and control characters are.
 */
export function pythonStringLiteral(s: string, ensureAscii = true): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const code = s.charCodeAt(i);
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (code < 0x20 || (ensureAscii && code > 0x7e)) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

export interface PythonDumpOptions {
  /** json.dumps(sort_keys=True): object keys in code-point order instead of declaration/insertion order. */
  sortKeys?: boolean;
  /** json.dumps(ensure_ascii=False): non-ASCII text written as is. Default true, as in Python. */
  ensureAscii?: boolean;
}

/** A dict's entries in Python's order: as the source JSON listed them (see ordered-json), else insertion order. */
function entriesInSourceOrder(record: Record<string, unknown>): [string, unknown][] {
  return pythonKeyOrder(record)
    .map((k) => [k, record[k]] as [string, unknown])
    .filter(([, v]) => v !== undefined);
}

function dumpUntyped(value: unknown, opts: PythonDumpOptions): string {
  if (value === null || value === undefined) return "null";
  if (value instanceof PyFloat) return pythonFloatRepr(value.value);
  if (value instanceof PyOpaque) throw new NotJsonSerializableError(`Object ${value.repr} is not JSON serializable`);
  if (typeof value === "boolean") return value ? "true" : "false";
  // Untyped numbers come from JSON, where Python would have kept the int/float it parsed: integers stay integers
  // (but -0, which only a float can be).
  if (typeof value === "number") return Number.isInteger(value) && !Object.is(value, -0) ? String(value) : pythonFloatRepr(value);
  if (typeof value === "string") return pythonStringLiteral(value, opts.ensureAscii ?? true);
  if (Array.isArray(value)) return `[${value.map((v) => dumpUntyped(v, opts)).join(", ")}]`;
  const entries = entriesInSourceOrder(value as Record<string, unknown>);
  if (opts.sortKeys) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${pythonStringLiteral(k, opts.ensureAscii ?? true)}: ${dumpUntyped(v, opts)}`).join(", ")}}`;
}

/** `json.dumps(value)` of a value of Python type `type` (a model is dumped as `model_dump()` would give it). */
export function pythonJsonDumps(value: unknown, type: PyType, opts: PythonDumpOptions = {}): string {
  if (value === null || value === undefined) return "null";
  if (typeof type === "string") {
    switch (type) {
      case "float":
        return typeof value === "number" ? pythonFloatRepr(value) : dumpUntyped(value, opts);
      case "int":
        return typeof value === "number" && Number.isInteger(value) ? String(value) : dumpUntyped(value, opts);
      default:
        return dumpUntyped(value, opts);
    }
  }
  if ("optional" in type) return pythonJsonDumps(value, type.optional, opts);
  if ("list" in type) {
    if (!Array.isArray(value)) return dumpUntyped(value, opts);
    return `[${value.map((v) => pythonJsonDumps(v, type.list, opts)).join(", ")}]`;
  }
  if (typeof value !== "object" || Array.isArray(value)) return dumpUntyped(value, opts);
  const record = value as Record<string, unknown>;
  let entries: [string, string][];
  if ("dict" in type) {
    entries = entriesInSourceOrder(record).map(([k, v]) => [k, pythonJsonDumps(v, type.dict, opts)]);
  } else {
    const model = "model" in type ? type.model : type.union(record);
    entries = model.fields.map(([k, t]) => [k, pythonJsonDumps(record[k], t, opts)]);
  }
  if (opts.sortKeys) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${pythonStringLiteral(k, opts.ensureAscii ?? true)}: ${v}`).join(", ")}}`;
}

/** `repr(s)` of a Python str: single quotes unless the text has one and no double quote; controls escaped. */
function pythonStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    // Not printable for Python: C0/C1 controls, DEL, no-break space, soft hyphen, line/paragraph separators.
    else if (code < 0x20 || (code >= 0x7f && code <= 0xa0) || code === 0xad) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code === 0x2028 || code === 0x2029) out += `\\u${code.toString(16)}`;
    else out += ch;
  }
  return out + quote;
}

/**
 * `str(value)` / `repr(value)` of a JSON value loaded by Python's json module: dicts `{'k': v}` in source order,
 * True / False / None, integers as integers (JSON floats with a zero fraction would print as `1.0`, which JavaScript
 * cannot tell from 1; callers pass data without them).
 */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value instanceof PyFloat) return pythonFloatRepr(value.value);
  if (value instanceof PyOpaque) return value.repr;
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "nan";
    if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
    return Number.isInteger(value) && !Object.is(value, -0) ? String(value) : pythonFloatRepr(value);
  }
  if (typeof value === "string") return pythonStrRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  return `{${entriesInSourceOrder(value as Record<string, unknown>)
    .map(([k, v]) => `${pythonStrRepr(k)}: ${pythonRepr(v)}`)
    .join(", ")}}`;
}
