/**
 * Python's reading of text, where a reference system's behaviour hangs on it: `str.strip()`, `float(x)` and
 * `json.loads`. Simia-RL scores a judge reply with `float(json.loads(...)["reward"])` and strips every message;
 * agent_gym reads a judge's argument score with `float(text)`. JavaScript's trim(), Number() and JSON.parse differ at
 * the edges ("1_000", "inf", NaN in JSON, U+001C, U+FEFF), and at the edges is where a reward silently changes.
 * Pure: no I/O.
 */
import { pythonRepr } from "./python-json";

/** The characters `str.isspace()` is true for (str.strip()'s default set); JS trim() lacks U+001C–U+001F and U+0085 and adds U+FEFF. */
const PY_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const LEADING = new RegExp(`^[${PY_SPACE}]+`);
const TRAILING = new RegExp(`[${PY_SPACE}]+$`);

export function pythonStrip(s: string): string {
  return s.replace(LEADING, "").replace(TRAILING, "");
}

/** `str.split()` with no separator: runs of `str.isspace()` characters split, empty strings dropped. */
export function pythonSplit(s: string): string[] {
  return s.split(SPACE_RUN).filter(Boolean);
}
const SPACE_RUN = new RegExp(`[${PY_SPACE}]+`);

/** str.lstrip(chars) for a set of single characters. */
export function pythonLstrip(s: string, chars: string): string {
  let i = 0;
  while (i < s.length && chars.includes(s[i])) i++;
  return s.slice(i);
}

/** The first `n` code points, as Python's s[:n] (JS slice counts UTF-16 units). */
export function pythonPrefix(s: string, n: number): string {
  return Array.from(s).slice(0, n).join("");
}

const DIGITS = String.raw`\d(?:_?\d)*`;
const FLOAT_TEXT = new RegExp(
  String.raw`^[+-]?(?:(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:[eE][+-]?${DIGITS})?|inf|infinity|nan)$`,
  "i",
);

export type PythonFloat = { ok: true; value: number } | { ok: false; error: string };

/** Non-ASCII characters float() reads as a space: `str.isspace()`'s, past U+007E (ASCII ones are kept as they are). */
const WIDE_SPACE = /^[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;
const DECIMAL = /^\p{Nd}$/u;
const digitCache = new Map<number, number>();

/**
 * The value of a Unicode decimal digit (general category Nd). Unicode assigns them only in runs of ten, 0 to 9, so
 * the value is the distance from the run's start modulo 10 (runs can abut, as the mathematical digits do).
 */
function decimalValue(cp: number): number {
  const known = digitCache.get(cp);
  if (known !== undefined) return known;
  let start = cp;
  while (start > 0 && DECIMAL.test(String.fromCodePoint(start - 1))) start--;
  const value = (cp - start) % 10;
  digitCache.set(cp, value);
  return value;
}

/**
 * The ASCII text CPython's float() parses: each non-ASCII space becomes " ", each Unicode decimal digit its ASCII
 * digit ("٧٥" -> "75"), any other non-ASCII character makes the text unreadable (null); then ASCII whitespace is
 * stripped from both ends. ASCII control characters are kept, so "\x1c1" is a ValueError although strip() removes
 * U+001C (_PyUnicode_TransformDecimalAndSpaceToASCII, then Py_ISSPACE).
 */
function asciiFloatText(s: string): string | null {
  let out = "";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 127) out += ch;
    else if (WIDE_SPACE.test(ch)) out += " ";
    else if (DECIMAL.test(ch)) out += String(decimalValue(cp));
    else return null;
  }
  return out.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, "");
}

const typeName = (v: unknown): string =>
  v === null ? "NoneType" : Array.isArray(v) ? "list" : typeof v === "object" ? "dict" : typeof v === "string" ? "str" : typeof v;

/**
 * `float(v)` for a value json.loads produced: numbers and booleans convert, strings parse as Python parses them
 * (any Unicode decimal digit, surrounding whitespace, underscores between digits, inf/nan in any case), anything else is
 * Python's TypeError. The error texts are Python's.
 */
export function pythonFloat(v: unknown): PythonFloat {
  if (typeof v === "number") return { ok: true, value: v };
  if (typeof v === "boolean") return { ok: true, value: v ? 1 : 0 };
  if (typeof v !== "string")
    return { ok: false, error: `TypeError: float() argument must be a string or a real number, not '${typeName(v)}'` };
  const text = asciiFloatText(v);
  if (text === null || !FLOAT_TEXT.test(text))
    return { ok: false, error: `ValueError: could not convert string to float: ${pythonRepr(v)}` };
  const plain = text.replace(/_/g, "").toLowerCase();
  const sign = plain.startsWith("-") ? -1 : 1;
  const body = plain.replace(/^[+-]/, "");
  if (body === "nan") return { ok: true, value: NaN };
  if (body === "inf" || body === "infinity") return { ok: true, value: sign * Infinity };
  return { ok: true, value: Number(plain) };
}

/**
 * `json.loads(text)`: JSON.parse plus Python's extensions, the bare constants NaN, Infinity and -Infinity outside
 * strings. null when Python would raise.
 */
export function pythonJsonLoads(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) };
  } catch {
    if (!/NaN|Infinity/.test(text)) return null;
  }
  // Rewrite the constants outside strings to unique string markers, parse, then put the numbers back.
  const marker = "\u0000py:";
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === "\\") out += text[++i] ?? "";
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    const constant = ["-Infinity", "Infinity", "NaN"].find((k) => text.startsWith(k, i));
    if (constant) {
      out += JSON.stringify(marker + constant);
      i += constant.length - 1;
    } else out += c;
  }
  const restore = (v: unknown): unknown => {
    if (typeof v === "string" && v.startsWith(marker))
      return { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity }[v.slice(marker.length)];
    if (Array.isArray(v)) return v.map(restore);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, restore(x)]));
    return v;
  };
  try {
    return { value: restore(JSON.parse(out)) };
  } catch {
    return null;
  }
}

/** `str(v)` of a value json.loads produced (a string as itself, anything else as Python prints it). */
export function pythonStr(v: unknown): string {
  return typeof v === "string" ? v : pythonRepr(v);
}

/**
 * `a == b` for values json.loads produced: numbers and booleans compare by value (True == 1), strings exactly, lists
 * and dicts element by element (dicts whatever their key order).
 */
export function pythonEquals(a: unknown, b: unknown): boolean {
  const numeric = (v: unknown) => typeof v === "number" || typeof v === "boolean";
  if (numeric(a) && numeric(b)) return Number(a) === Number(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pythonEquals(x, b[i]));
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a);
    const rb = b as Record<string, unknown>;
    return ka.length === Object.keys(rb).length && ka.every((k) => k in rb && pythonEquals((a as Record<string, unknown>)[k], rb[k]));
  }
  return a === b;
}
