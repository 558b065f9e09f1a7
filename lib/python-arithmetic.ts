/**
 * Python's arithmetic for expressions other systems evaluate with `eval`: digits, + - * / // ** ( ) and spaces —
 * exact integers, `/` true division, `//` floor division, `**` binding tighter than a unary minus on its left —
 * with Python's error messages. τ²'s `calculate` tool returns `str(round(float(result), 2))` of it ("4.0",
 * "-17.99", "Error: division by zero"); UserRL's Function gym evaluates its hidden rules with it, the inputs bound to
 * names (its probes as floats, its test cases as ints). Also Python's `float(text)` and `str()` of a number.
 */
import { pythonFloatRepr, pythonRound } from "./python-json";
import { pythonFloat } from "./python-values";

export class PythonEvalError extends Error {}

/** A Python int (exact, as bigint) or float. */
export type PyNum = bigint | number;

const isInt = (x: PyNum): x is bigint => typeof x === "bigint";
function toFloat(x: PyNum): number {
  if (!isInt(x)) return x;
  const f = Number(x);
  if (!Number.isFinite(f)) throw new PythonEvalError("int too large to convert to float");
  return f;
}

function floatFloorDiv(a: number, b: number): number {
  if (b === 0) throw new PythonEvalError("float floor division by zero");
  // CPython's float_floor_div: divide the exact remainder out, then correct the rounding.
  let mod = a % b;
  let div = (a - mod) / b;
  if (mod !== 0) {
    if (b < 0 !== mod < 0) {
      mod += b;
      div -= 1;
    }
  }
  if (div === 0) return Math.sign(a / b) < 0 || Object.is(a / b, -0) ? -0 : 0;
  let floorDiv = Math.floor(div);
  if (div - floorDiv > 0.5) floorDiv += 1;
  return floorDiv;
}

function binary(op: string, a: PyNum, b: PyNum): PyNum {
  if (isInt(a) && isInt(b)) {
    switch (op) {
      case "+":
        return a + b;
      case "-":
        return a - b;
      case "*":
        return a * b;
      case "/":
        if (b === 0n) throw new PythonEvalError("division by zero");
        return Number(a) / Number(b);
      case "//": {
        if (b === 0n) throw new PythonEvalError("integer division or modulo by zero");
        const q = a / b;
        return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
      }
      case "**":
        if (b < 0n) {
          if (a === 0n) throw new PythonEvalError("0.0 cannot be raised to a negative power");
          return Number(a) ** Number(b);
        }
        // Powers of 0, 1 and -1 stay small whatever the exponent (UserRL's rules write 1 ** 10 ** 27).
        if (a === 0n || a === 1n) return b === 0n ? 1n : a;
        if (a === -1n) return b % 2n === 0n ? 1n : -1n;
        if (b > 100_000n) throw new PythonEvalError("int too large to convert to float");
        return a ** b;
    }
  }
  const x = toFloat(a);
  const y = toFloat(b);
  switch (op) {
    case "+":
      return x + y;
    case "-":
      return x - y;
    case "*":
      return x * y;
    case "/":
      if (y === 0) throw new PythonEvalError("float division by zero");
      return x / y;
    case "//":
      return floatFloorDiv(x, y);
    case "**":
      if (x === 0 && y < 0) throw new PythonEvalError("0.0 cannot be raised to a negative power");
      if (x < 0 && !Number.isInteger(y)) throw new PythonEvalError("float() argument must be a string or a real number, not 'complex'");
      // float ** float raises where the result overflows (float * float does not: it gives inf).
      if (!Number.isFinite(x ** y) && Number.isFinite(x) && Number.isFinite(y))
        throw new PythonEvalError("(34, 'Numerical result out of range')");
      return x ** y;
  }
  throw new PythonEvalError(`unsupported operator ${op}`);
}

const SYNTAX = "invalid syntax (<string>, line 1)";

function tokenize(expr: string): string[] {
  const tokens: string[] = [];
  const re = /\s*(\d+\.?\d*|\.\d+|\*\*|\/\/|[-+*/()]|[A-Za-z_]\w*)/y;
  let i = 0;
  while (i < expr.length) {
    if (/^\s*$/.test(expr.slice(i))) break;
    re.lastIndex = i;
    const m = re.exec(expr);
    if (!m) throw new PythonEvalError(SYNTAX);
    tokens.push(m[1]);
    i = re.lastIndex;
  }
  return tokens;
}

/** Python's value of `expr` (digits, + - * / ( ) . and spaces, and the given names bound to their values). */
export function evalPythonArithmetic(expr: string, names: Readonly<Record<string, PyNum>> = {}): PyNum {
  const tokens = tokenize(expr);
  if (tokens.length === 0) throw new PythonEvalError("invalid syntax (<string>, line 0)");
  let pos = 0;
  const peek = () => tokens[pos];

  // Grammar (Python's): sum := term (('+'|'-') term)*; term := factor (('*'|'/'|'//') factor)*;
  // factor := ('+'|'-') factor | power; power := atom ['**' factor]; atom := number | '(' sum ')'.
  const atom = (): PyNum => {
    const t = tokens[pos++];
    if (t === undefined) throw new PythonEvalError(SYNTAX);
    if (t === "(") {
      const v = sum();
      if (tokens[pos] === undefined) throw new PythonEvalError("'(' was never closed (<string>, line 1)");
      if (tokens[pos++] !== ")") throw new PythonEvalError(SYNTAX);
      return v;
    }
    if (/^[\d.]/.test(t)) {
      if (t.includes(".")) return Number(t);
      if (/^0+[1-9]/.test(t)) {
        throw new PythonEvalError(
          "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
        );
      }
      return BigInt(t);
    }
    if (/^[A-Za-z_]/.test(t)) {
      if (!Object.hasOwn(names, t)) throw new PythonEvalError(`name '${t}' is not defined`);
      return names[t];
    }
    throw new PythonEvalError(SYNTAX);
  };
  const power = (): PyNum => {
    const base = atom();
    if (peek() === "(") throw new PythonEvalError(`'${isInt(base) ? "int" : "float"}' object is not callable`);
    if (peek() !== "**") return base;
    pos++;
    return binary("**", base, factor());
  };
  const factor = (): PyNum => {
    const t = peek();
    if (t === "-" || t === "+") {
      pos++;
      const v = factor();
      if (t === "+") return v;
      return typeof v === "bigint" ? -v : -v;
    }
    return power();
  };
  const term = (): PyNum => {
    let v = factor();
    while (peek() === "*" || peek() === "/" || peek() === "//") {
      const op = tokens[pos++];
      v = binary(op, v, factor());
    }
    return v;
  };
  const sum = (): PyNum => {
    let v = term();
    while (peek() === "+" || peek() === "-") {
      const op = tokens[pos++];
      v = binary(op, v, term());
    }
    return v;
  };
  const value = sum();
  if (pos !== tokens.length) throw new PythonEvalError(tokens[pos] === ")" ? "unmatched ')' (<string>, line 1)" : SYNTAX);
  return value;
}

/** `str(round(float(eval(expression)), 2))`, τ²'s `calculate`. */
export function tau2Calculate(expression: string): string {
  const value = toFloat(evalPythonArithmetic(expression));
  if (!Number.isFinite(value)) {
    if (Number.isNaN(value)) return "nan";
    return value > 0 ? "inf" : "-inf";
  }
  return pythonFloatRepr(pythonRound(value, 2));
}

/** τ²'s `calculate` tool as every τ² domain has it: its character check, then tau2Calculate; τ²'s message to `fail`. */
export function tau2CalculateTool(expression: string, fail: (message: string) => never): string {
  if (![...expression].every((c) => "0123456789+-*/(). ".includes(c))) return fail("Invalid characters in expression");
  try {
    return tau2Calculate(expression);
  } catch (e) {
    if (e instanceof PythonEvalError) return fail(e.message);
    throw e;
  }
}

/** `str(x)` of a Python int or float: 42, 42.0, 1e-05, inf, nan. */
export function pythonNumberStr(x: PyNum): string {
  if (isInt(x)) return x.toString();
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  return pythonFloatRepr(x);
}

/** `round(x, ndigits)`: an int stays itself, a float rounds as Python rounds it. */
export function pythonRoundNumber(x: PyNum, ndigits: number): PyNum {
  return isInt(x) ? x : pythonRound(x, ndigits);
}

/**
 * Python's `float(text)`, or null where it raises ValueError ("25.0 points", "", "1,000"): the one float() reader
 * (lib/python-values.ts), so "٤٢" is 42 here as in FunctionGym.
 */
export function parsePythonFloat(text: string): number | null {
  const read = pythonFloat(text);
  return read.ok ? read.value : null;
}
