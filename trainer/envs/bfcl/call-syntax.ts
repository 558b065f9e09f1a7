/**
 * Parser for the Python call syntax of BFCL answers and of policies prompted BFCL-style:
 * `cd(folder='document')`, `sort('final_report.pdf')`, `post_tweet(content="Hi", tags=['#a'], mentions=[])`, and a
 * list of them (`[cd(folder='temp'), ls(a=True)]`) or one per line. Values are Python literals: strings (single,
 * double, triple quoted, with escapes), ints/floats, True/False/None, lists, tuples and dicts. Nothing is evaluated.
 */

export interface PyCall {
  name: string;
  positional: unknown[];
  keywords: Record<string, unknown>;
}

export class CallSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} (at character ${position})`);
    this.name = "CallSyntaxError";
  }
}

class Reader {
  pos = 0;
  constructor(readonly src: string) {}

  skipSpace(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos])) this.pos++;
  }
  peek(): string {
    this.skipSpace();
    return this.src[this.pos] ?? "";
  }
  eat(ch: string): boolean {
    if (this.peek() === ch) {
      this.pos++;
      return true;
    }
    return false;
  }
  expect(ch: string): void {
    if (!this.eat(ch)) throw new CallSyntaxError(`expected "${ch}" but found "${this.src[this.pos] ?? "end of text"}"`, this.pos);
  }
  atEnd(): boolean {
    this.skipSpace();
    return this.pos >= this.src.length;
  }
  identifier(): string {
    this.skipSpace();
    const m = /^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*/.exec(this.src.slice(this.pos));
    if (!m) throw new CallSyntaxError("expected a name", this.pos);
    this.pos += m[0].length;
    return m[0];
  }
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };

function readString(r: Reader): string {
  r.skipSpace();
  // String prefixes r/b/u/f are accepted; r disables escapes.
  const prefix = /^[rRbBuUfF]{0,2}(?=['"])/.exec(r.src.slice(r.pos))?.[0] ?? "";
  r.pos += prefix.length;
  const raw = /r/i.test(prefix);
  const triple = r.src.startsWith(r.src[r.pos].repeat(3), r.pos) ? r.src[r.pos].repeat(3) : null;
  const quote = triple ?? r.src[r.pos];
  r.pos += quote.length;
  let out = "";
  while (r.pos < r.src.length) {
    if (r.src.startsWith(quote, r.pos)) {
      r.pos += quote.length;
      return out;
    }
    const ch = r.src[r.pos];
    if (ch === "\\" && !raw) {
      const next = r.src[r.pos + 1] ?? "";
      if (next === "u" || next === "x") {
        const len = next === "u" ? 4 : 2;
        out += String.fromCharCode(parseInt(r.src.slice(r.pos + 2, r.pos + 2 + len), 16));
        r.pos += 2 + len;
      } else {
        out += ESCAPES[next] ?? `\\${next}`;
        r.pos += 2;
      }
      continue;
    }
    out += ch;
    r.pos++;
  }
  throw new CallSyntaxError("unterminated string", r.pos);
}

function readValue(r: Reader): unknown {
  const ch = r.peek();
  if (ch === "'" || ch === '"' || (/[rRbBuUfF]/.test(ch) && /^[rRbBuUfF]{1,2}['"]/.test(r.src.slice(r.pos)))) return readString(r);
  if (ch === "[" || ch === "(") {
    const close = ch === "[" ? "]" : ")";
    r.pos++;
    const items: unknown[] = [];
    while (!r.eat(close)) {
      items.push(readValue(r));
      if (!r.eat(",")) {
        r.expect(close);
        break;
      }
    }
    return items;
  }
  if (ch === "{") {
    r.pos++;
    const obj: Record<string, unknown> = {};
    while (!r.eat("}")) {
      const key = readValue(r);
      r.expect(":");
      obj[String(key)] = readValue(r);
      if (!r.eat(",")) {
        r.expect("}");
        break;
      }
    }
    return obj;
  }
  const m = /^[+-]?(?:\d[\d_]*\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)/.exec(r.src.slice(r.pos));
  if (m) {
    r.pos += m[0].length;
    return Number(m[0].replace(/_/g, ""));
  }
  const word = r.identifier();
  if (word === "True") return true;
  if (word === "False") return false;
  if (word === "None") return null;
  throw new CallSyntaxError(`"${word}" is not a literal value`, r.pos);
}

function readCall(r: Reader): PyCall {
  const name = r.identifier();
  r.expect("(");
  const positional: unknown[] = [];
  const keywords: Record<string, unknown> = {};
  while (!r.eat(")")) {
    const save = r.pos;
    const kw = /^\s*([A-Za-z_]\w*)\s*=(?!=)/.exec(r.src.slice(r.pos));
    if (kw) {
      r.pos += kw[0].length;
      keywords[kw[1]] = readValue(r);
    } else {
      if (Object.keys(keywords).length > 0) throw new CallSyntaxError("positional argument after keyword argument", save);
      positional.push(readValue(r));
    }
    if (!r.eat(",")) {
      r.expect(")");
      break;
    }
  }
  // BFCL class-qualified names ("GorillaFileSystem.cd") address the same method.
  return { name: name.includes(".") ? name.slice(name.lastIndexOf(".") + 1) : name, positional, keywords };
}

/** One or more calls: `[f(), g()]`, `f(); g()`, or one call per line. Throws CallSyntaxError on anything else. */
export function parsePythonCalls(text: string): PyCall[] {
  let src = text.trim();
  const fence = /^```(?:python|py)?\s*\n?([\s\S]*?)```$/.exec(src);
  if (fence) src = fence[1].trim();
  const r = new Reader(src);
  const bracketed = r.eat("[");
  const calls: PyCall[] = [];
  while (!r.atEnd()) {
    if (bracketed && r.eat("]")) break;
    calls.push(readCall(r));
    if (!r.eat(",")) r.eat(";");
  }
  if (!r.atEnd()) throw new CallSyntaxError("unexpected text after the calls", r.pos);
  if (calls.length === 0) throw new CallSyntaxError("no function call found", 0);
  return calls;
}

/** Python-style rendering of a call, used for recording calls in the trajectory. */
export function formatPythonCall(name: string, args: Record<string, unknown>): string {
  const lit = (v: unknown): string => {
    if (typeof v === "string") return `'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n")}'`;
    if (typeof v === "boolean") return v ? "True" : "False";
    if (v === null || v === undefined) return "None";
    if (Array.isArray(v)) return `[${v.map(lit).join(", ")}]`;
    if (typeof v === "object")
      return `{${Object.entries(v)
        .map(([k, x]) => `${lit(k)}: ${lit(x)}`)
        .join(", ")}}`;
    return String(v);
  };
  return `${name}(${Object.entries(args)
    .map(([k, v]) => `${k}=${lit(v)}`)
    .join(", ")})`;
}
