/**
 * Python's `ast.literal_eval` for the literals an LLM writes when asked for JSON in a Python-minded system: dicts,
 * lists and tuples, single- or double-quoted strings (with their escapes), numbers, True / False / None. UserRL's
 * PersuadeGym reads its simulated user's reply this way, so `{'stance': 'Disagree', ...}` is a reply there, while
 * JSON's `true` / `null` are not. Anything outside this subset (sets, bytes, triple quotes, complex numbers) reads
 * as null, as an unreadable reply. Pure: no I/O.
 */

class Unreadable extends Error {}

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  "0": "\0",
  "\n": "",
};

/** The value of `text` as literal_eval gives it (dicts as plain objects, tuples as arrays), or null where it raises. */
export function pythonLiteralEval(text: string): { value: unknown } | null {
  // literal_eval strips leading spaces and tabs; the parser in "eval" mode allows surrounding newlines too.
  const src = text.replace(/^[ \t]+/, "");
  let i = 0;
  const space = () => {
    for (;;) {
      while (i < src.length && /[ \t\n\r\f\v]/.test(src[i])) i++;
      if (src[i] !== "#") return;
      while (i < src.length && src[i] !== "\n") i++; // a comment
    }
  };
  const expect = (c: string) => {
    space();
    if (src[i] !== c) throw new Unreadable();
    i++;
  };
  function str(): string {
    const q = src[i++];
    let out = "";
    while (i < src.length && src[i] !== q) {
      const c = src[i++];
      if (c === "\n") throw new Unreadable();
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = src[i++];
      if (e in ESCAPES) out += ESCAPES[e];
      else if (e === "x" || e === "u" || e === "U") {
        const n = e === "x" ? 2 : e === "u" ? 4 : 8;
        const hex = src.slice(i, i + n);
        if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) throw new Unreadable();
        out += String.fromCodePoint(parseInt(hex, 16));
        i += n;
      } else out += `\\${e}`; // Python keeps an unknown escape as written
    }
    if (src[i] !== q) throw new Unreadable();
    i++;
    space();
    return src[i] === "'" || src[i] === '"' ? out + str() : out; // adjacent strings concatenate
  }
  function seq(close: string): unknown[] {
    const items: unknown[] = [];
    for (;;) {
      space();
      if (src[i] === close) break;
      items.push(value());
      space();
      if (src[i] === ",") i++;
      else if (src[i] !== close) throw new Unreadable();
    }
    i++;
    return items;
  }
  function value(): unknown {
    space();
    const c = src[i];
    if (c === "'" || c === '"') return str();
    if (c === "[") {
      i++;
      return seq("]");
    }
    if (c === "(") {
      i++;
      return seq(")");
    }
    if (c === "{") {
      i++;
      const out: Record<string, unknown> = {};
      for (;;) {
        space();
        if (src[i] === "}") break;
        const key = value();
        if (typeof key !== "string" && typeof key !== "number" && typeof key !== "boolean" && key !== null) throw new Unreadable();
        expect(":");
        out[String(key)] = value();
        space();
        if (src[i] === ",") i++;
        else if (src[i] !== "}") throw new Unreadable();
      }
      i++;
      return out;
    }
    const word = /^(True|False|None)\b/.exec(src.slice(i));
    if (word) {
      i += word[0].length;
      return word[0] === "True" ? true : word[0] === "False" ? false : null;
    }
    const num = /^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?(?![\w.])/.exec(src.slice(i));
    if (num) {
      // Python 3 forbids leading zeros in a non-zero integer ("01").
      if (/^[+-]?0[\d_]*[1-9]/.test(num[0]) && !/[.eE]/.test(num[0])) throw new Unreadable();
      i += num[0].length;
      return Number(num[0].replace(/_/g, ""));
    }
    throw new Unreadable();
  }
  try {
    const v = value();
    space();
    if (i !== src.length) return null;
    return { value: v };
  } catch (e) {
    if (e instanceof Unreadable) return null;
    throw e;
  }
}
