/**
 * JSON.parse that remembers each object's key order as written in the source.
 *
 * JavaScript objects list integer-like keys ("1008292230") first, in numeric order, whatever order the text gave.
 * Python dicts keep the text's order, and τ²-bench shows the agent its products' variants (keyed by numeric item
 * ids) in that order. The parsed value is plain JSON; `sourceKeyOrder` gives the original order of any object whose
 * JavaScript key order differs from it.
 */

const keyOrders = new WeakMap<object, string[]>();

/** The keys of `obj` in the order its source text listed them, when that differs from `Object.keys(obj)`. */
export function sourceKeyOrder(obj: object): string[] | undefined {
  return keyOrders.get(obj);
}

/** The keys of `obj` in Python's order: as its source listed them, then any added since (in insertion order). */
export function pythonKeyOrder(obj: object): string[] {
  const order = keyOrders.get(obj);
  if (!order) return Object.keys(obj);
  return [...order.filter((k) => k in obj), ...Object.keys(obj).filter((k) => !order.includes(k))];
}

/** `copy` (a copy of `original` with the same keys) remembers `original`'s source key order too. */
export function withKeyOrderOf<T extends object>(copy: T, original: object): T {
  const order = keyOrders.get(original);
  if (order) keyOrders.set(copy, [...order]);
  return copy;
}

/** A deep copy of parsed JSON in which every object keeps its source key order. */
export function cloneKeepingKeyOrder<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneKeepingKeyOrder) as T;
  if (value !== null && typeof value === "object" && value.constructor === Object) {
    const copy = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cloneKeepingKeyOrder(v)]));
    return withKeyOrderOf(copy, value) as T;
  }
  return value;
}

/**
 * Give `key` of `obj` the value, placed last in Python's order as a dict assignment of a new key would place it.
 * For ports of Python code whose dicts take integer-like keys (JavaScript would list those first).
 */
export function setInInsertionOrder<T>(obj: Record<string, T>, key: string, value: T): void {
  const order = keyOrders.get(obj) ?? Object.keys(obj);
  if (!(key in obj)) order.push(key);
  obj[key] = value;
  if (order.some((k, n) => k !== Object.keys(obj)[n])) keyOrders.set(obj, order);
}

const LITERAL = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

export interface ParseOptions {
  /** Builds each number from its literal text (default: the JavaScript number), e.g. to keep `247.0` a float. */
  number?: (literal: string) => unknown;
}

export function parseJsonKeepingKeyOrder(text: string, options: ParseOptions = {}): unknown {
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++;
  };
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} in JSON at position ${i}`);
  };
  const str = (): string => {
    const start = i;
    i++; // opening quote
    let escaped = false;
    while (i < text.length) {
      const ch = text[i++];
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') return JSON.parse(text.slice(start, i)) as string;
    }
    return fail("Unterminated string");
  };
  const value = (): unknown => {
    ws();
    const ch = text[i];
    if (ch === "{") {
      i++;
      const obj: Record<string, unknown> = {};
      const order: string[] = [];
      ws();
      if (text[i] === "}") {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("Expected a property name");
        const key = str();
        ws();
        if (text[i++] !== ":") fail("Expected ':'");
        if (!(key in obj)) order.push(key);
        obj[key] = value();
        ws();
        const sep = text[i++];
        if (sep === "}") break;
        if (sep !== ",") fail("Expected ',' or '}'");
      }
      const jsOrder = Object.keys(obj);
      if (jsOrder.some((k, n) => k !== order[n])) keyOrders.set(obj, order);
      return obj;
    }
    if (ch === "[") {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        const sep = text[i++];
        if (sep === "]") break;
        if (sep !== ",") fail("Expected ',' or ']'");
      }
      return arr;
    }
    if (ch === '"') return str();
    LITERAL.lastIndex = i;
    const literal = LITERAL.exec(text);
    if (!literal) return fail(`Unexpected token ${JSON.stringify(ch ?? "end")}`);
    i += literal[0].length;
    const first = literal[0][0];
    if (options.number && first !== "t" && first !== "f" && first !== "n") return options.number(literal[0]);
    return JSON.parse(literal[0]);
  };
  const result = value();
  ws();
  if (i < text.length) fail("Unexpected data after JSON");
  return result;
}

/** JSON.stringify (one space of indent per level) that writes objects in their source key order where one is known. */
export function stringifyKeepingKeyOrder(value: unknown, depth = 0): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  const pad = "\n" + " ".repeat(depth + 1);
  const close = "\n" + " ".repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[${value.map((v) => pad + stringifyKeepingKeyOrder(v, depth + 1)).join(",")}${close}]`;
  }
  const record = value as Record<string, unknown>;
  const order = sourceKeyOrder(record);
  const keys = (
    order ? [...order.filter((k) => k in record), ...Object.keys(record).filter((k) => !order.includes(k))] : Object.keys(record)
  ).filter((k) => record[k] !== undefined);
  if (keys.length === 0) return "{}";
  return `{${keys.map((k) => `${pad}${JSON.stringify(k)}: ${stringifyKeepingKeyOrder(record[k], depth + 1)}`).join(",")}${close}}`;
}
