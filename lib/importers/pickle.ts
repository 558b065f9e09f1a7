/**
 * A reader for Python pickles (protocols 2–5) that never runs anything: classes and functions a pickle names stay
 * names. What Python would rebuild by calling them arrives as `{ $call, args }` (REDUCE, NEWOBJ) with any BUILD state
 * attached as `state`, so an importer can pick out the plain data it knows — dicts, lists, tuples, strings, bytes,
 * numbers — from an object graph it must not (and, in a browser, cannot) execute. Loading a pickle in Python runs
 * whatever it names; reading one here is safe.
 *
 * Dicts become Maps (pickle keys may be tuples or numbers), tuples and lists arrays, bytes Uint8Arrays, ints numbers
 * (or BigInt beyond 2^53).
 */

export interface PickleGlobal {
  $global: string;
}
export interface PickleCall {
  $call: PickleGlobal | PickleValue;
  args: PickleValue[];
  state?: PickleValue;
  /** Items set or appended on the built object (a dict or list subclass such as OrderedDict). */
  items?: Map<PickleValue, PickleValue>;
  list?: PickleValue[];
}
export type PickleValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | PickleValue[]
  | Map<PickleValue, PickleValue>
  | Set<PickleValue>
  | PickleGlobal
  | PickleCall;

export class PickleError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} (at byte ${offset})`);
    this.name = "PickleError";
  }
}

const MARK = Symbol("mark");
type Slot = PickleValue | typeof MARK;

export const isGlobal = (v: unknown): v is PickleGlobal => typeof v === "object" && v !== null && "$global" in v;
export const isCall = (v: unknown): v is PickleCall => typeof v === "object" && v !== null && "$call" in v;

/** The Map's value under a string key, or undefined. */
export function field(v: PickleValue | undefined, key: string): PickleValue | undefined {
  return v instanceof Map ? v.get(key) : undefined;
}

export function readPickle(bytes: Uint8Array): PickleValue {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = new TextDecoder("utf-8", { fatal: true });
  const stack: Slot[] = [];
  const memo = new Map<number, PickleValue>();
  let pos = 0;

  const fail = (message: string): never => {
    throw new PickleError(message, pos);
  };
  const need = (n: number) => {
    if (pos + n > bytes.length) fail("the pickle ends early");
  };
  const u8 = () => (need(1), bytes[pos++]);
  const u16 = () => (need(2), (pos += 2), view.getUint16(pos - 2, true));
  const u32 = () => (need(4), (pos += 4), view.getUint32(pos - 4, true));
  const u64 = () => {
    need(8);
    const n = view.getBigUint64(pos, true);
    pos += 8;
    if (n > BigInt(bytes.length)) fail("a length runs past the end of the pickle");
    return Number(n);
  };
  const take = (n: number) => (need(n), bytes.subarray(pos, (pos += n)));
  const line = () => {
    const end = bytes.indexOf(0x0a, pos);
    if (end < 0) fail("a text argument has no newline");
    const s = new TextDecoder("latin1").decode(bytes.subarray(pos, end));
    pos = end + 1;
    return s;
  };
  const pop = (): PickleValue => {
    const v = stack.pop();
    if (v === undefined || v === MARK) fail("the stack is empty where a value was expected");
    return v as PickleValue;
  };
  const top = (): PickleValue => {
    const v = stack[stack.length - 1];
    if (v === undefined || v === MARK) fail("the stack is empty where a value was expected");
    return v as PickleValue;
  };
  const popMark = (): PickleValue[] => {
    const i = stack.lastIndexOf(MARK);
    if (i < 0) fail("no mark on the stack");
    const items = stack.splice(i) as PickleValue[];
    items.shift();
    return items;
  };
  const str = (b: Uint8Array) => {
    try {
      return text.decode(b);
    } catch {
      return fail("a string is not valid UTF-8");
    }
  };
  /** A signed little-endian integer of n bytes (LONG1 / LONG4). */
  const long = (b: Uint8Array): number | bigint => {
    let n = 0n;
    for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i]);
    if (b.length && b[b.length - 1] & 0x80) n -= 1n << BigInt(8 * b.length);
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
  };
  const setItems = (target: PickleValue, items: PickleValue[]) => {
    const map =
      target instanceof Map ? target : isCall(target) ? (target.items ??= new Map()) : fail("SETITEMS on something that is not a dict");
    for (let i = 0; i + 1 < items.length; i += 2) map.set(items[i], items[i + 1]);
  };
  const append = (target: PickleValue, items: PickleValue[]) => {
    if (Array.isArray(target)) target.push(...items);
    else if (target instanceof Set) items.forEach((x) => target.add(x));
    else if (isCall(target)) (target.list ??= []).push(...items);
    else fail("APPENDS on something that is not a list");
  };

  for (;;) {
    const op = u8();
    switch (op) {
      case 0x80: // PROTO
        u8();
        break;
      case 0x95: // FRAME (a length hint)
        need(8);
        pos += 8;
        break;
      case 0x2e: // STOP
        return pop();
      case 0x28: // MARK
        stack.push(MARK);
        break;
      case 0x4e: // NONE
        stack.push(null);
        break;
      case 0x88:
        stack.push(true);
        break;
      case 0x89:
        stack.push(false);
        break;
      case 0x4a: // BININT
        need(4);
        stack.push(view.getInt32(pos, true));
        pos += 4;
        break;
      case 0x4b: // BININT1
        stack.push(u8());
        break;
      case 0x4d: // BININT2
        stack.push(u16());
        break;
      case 0x8a: // LONG1
        stack.push(long(take(u8())));
        break;
      case 0x8b: // LONG4
        stack.push(long(take(u32())));
        break;
      case 0x47: // BINFLOAT (big-endian)
        need(8);
        stack.push(view.getFloat64(pos, false));
        pos += 8;
        break;
      case 0x8c: // SHORT_BINUNICODE
        stack.push(str(take(u8())));
        break;
      case 0x58: // BINUNICODE
        stack.push(str(take(u32())));
        break;
      case 0x8d: // BINUNICODE8
        stack.push(str(take(u64())));
        break;
      case 0x55: // SHORT_BINSTRING (Python 2 str)
        stack.push(new TextDecoder("latin1").decode(take(u8())));
        break;
      case 0x54: // BINSTRING
        stack.push(new TextDecoder("latin1").decode(take(u32())));
        break;
      case 0x43: // SHORT_BINBYTES
        stack.push(take(u8()).slice());
        break;
      case 0x42: // BINBYTES
        stack.push(take(u32()).slice());
        break;
      case 0x8e: // BINBYTES8
      case 0x96: // BYTEARRAY8
        stack.push(take(u64()).slice());
        break;
      case 0x7d: // EMPTY_DICT
        stack.push(new Map());
        break;
      case 0x5d: // EMPTY_LIST
        stack.push([]);
        break;
      case 0x29: // EMPTY_TUPLE
        stack.push([]);
        break;
      case 0x8f: // EMPTY_SET
        stack.push(new Set());
        break;
      case 0x85: // TUPLE1
        stack.push([pop()]);
        break;
      case 0x86: {
        // TUPLE2
        const b = pop();
        stack.push([pop(), b]);
        break;
      }
      case 0x87: {
        // TUPLE3
        const c = pop();
        const b = pop();
        stack.push([pop(), b, c]);
        break;
      }
      case 0x74: // TUPLE
      case 0x6c: // LIST
        stack.push(popMark());
        break;
      case 0x91: // FROZENSET
        stack.push(new Set(popMark()));
        break;
      case 0x64: {
        // DICT
        const m = new Map<PickleValue, PickleValue>();
        setItems(m, popMark());
        stack.push(m);
        break;
      }
      case 0x61: {
        // APPEND
        const v = pop();
        append(top(), [v]);
        break;
      }
      case 0x65: // APPENDS
      case 0x90: {
        // ADDITEMS
        const items = popMark();
        append(top(), items);
        break;
      }
      case 0x73: {
        // SETITEM
        const v = pop();
        const k = pop();
        setItems(top(), [k, v]);
        break;
      }
      case 0x75: {
        // SETITEMS
        const items = popMark();
        setItems(top(), items);
        break;
      }
      case 0x94: // MEMOIZE
        memo.set(memo.size, top());
        break;
      case 0x71: // BINPUT
        memo.set(u8(), top());
        break;
      case 0x72: // LONG_BINPUT
        memo.set(u32(), top());
        break;
      case 0x68: // BINGET
      case 0x6a: {
        // LONG_BINGET
        const i = op === 0x68 ? u8() : u32();
        if (!memo.has(i)) fail(`memo ${i} was never stored`);
        stack.push(memo.get(i)!);
        break;
      }
      case 0x63: {
        // GLOBAL "module\nname\n"
        const moduleName = line();
        stack.push({ $global: `${moduleName}.${line()}` });
        break;
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = pop();
        const moduleName = pop();
        if (typeof name !== "string" || typeof moduleName !== "string") fail("STACK_GLOBAL needs two strings");
        stack.push({ $global: `${moduleName}.${name}` });
        break;
      }
      case 0x52: // REDUCE
      case 0x81: {
        // NEWOBJ
        const args = pop();
        const callable = pop();
        stack.push({ $call: callable, args: Array.isArray(args) ? args : [args] });
        break;
      }
      case 0x92: {
        // NEWOBJ_EX
        pop(); // kwargs
        const args = pop();
        const callable = pop();
        stack.push({ $call: callable, args: Array.isArray(args) ? args : [args] });
        break;
      }
      case 0x62: {
        // BUILD
        const state = pop();
        const obj = top();
        if (isCall(obj)) obj.state = state;
        break;
      }
      case 0x30: // POP
        stack.pop();
        break;
      case 0x31: // POP_MARK
        popMark();
        break;
      case 0x32: // DUP
        stack.push(top());
        break;
      default:
        fail(`opcode 0x${op.toString(16).padStart(2, "0")} is not one this reader knows`);
    }
  }
}
