/**
 * A tiny, safe evaluator for the Function gym's hidden rules: arithmetic over the four inputs a, b, c, d with
 * + - * / %, parentheses, unary minus and min/max/abs. UserRL evaluates its rules with Python eval; a parser of our
 * own keeps task files from ever executing code.
 */
import { evalPythonArithmetic, PythonEvalError, type PyNum } from "../../../lib/python-arithmetic";

type Vars = { a: number; b: number; c: number; d: number };

/** Python's `%` on floats: the result takes the divisor's sign. */
function pythonMod(x: number, y: number): number {
  if (y === 0) throw new RangeError("float modulo");
  const r = x % y;
  return r !== 0 && r < 0 !== y < 0 ? r + y : r;
}
type Node = (v: Vars) => number;

export class RuleSyntaxError extends Error {}

export function compileRule(src: string): Node {
  const tokens = src.match(/\d+(\.\d+)?|[a-z]+|\*\*|[-+*/%(),]/g) ?? [];
  if (tokens.join("") !== src.replace(/\s+/g, "")) throw new RuleSyntaxError(`unexpected character in rule "${src}"`);
  let i = 0;
  const peek = (): string | undefined => tokens[i];
  const expect = (t: string): void => {
    if (tokens[i++] !== t) throw new RuleSyntaxError(`expected "${t}" in rule "${src}"`);
  };
  const FUNCS: Record<string, (xs: number[]) => number> = {
    min: (xs) => Math.min(...xs),
    max: (xs) => Math.max(...xs),
    abs: (xs) => Math.abs(xs[0]),
  };

  function primary(): Node {
    const t = tokens[i++];
    if (t === undefined) throw new RuleSyntaxError(`rule "${src}" ends too early`);
    if (/^\d/.test(t)) {
      const n = Number(t);
      return () => n;
    }
    if (t === "a" || t === "b" || t === "c" || t === "d") return (v) => v[t];
    if (t in FUNCS) {
      expect("(");
      const args: Node[] = [sum()];
      while (peek() === ",") {
        i++;
        args.push(sum());
      }
      expect(")");
      return (v) => FUNCS[t](args.map((f) => f(v)));
    }
    if (t === "(") {
      const inner = sum();
      expect(")");
      return inner;
    }
    throw new RuleSyntaxError(`unexpected "${t}" in rule "${src}"`);
  }
  // Python's precedence: ** binds tighter than a unary minus on its left (-2 ** 2 == -4) and is right-associative.
  function power(): Node {
    const base = primary();
    if (peek() !== "**") return base;
    i++;
    const exponent = factor();
    return (v) => base(v) ** exponent(v);
  }
  function factor(): Node {
    if (peek() === "-") {
      i++;
      const operand = factor();
      return (v) => -operand(v);
    }
    return power();
  }
  function product(): Node {
    let left = factor();
    while (peek() === "*" || peek() === "/" || peek() === "%") {
      const op = tokens[i++];
      const l = left;
      const r = factor();
      left = op === "*" ? (v) => l(v) * r(v) : op === "/" ? (v) => l(v) / r(v) : (v) => pythonMod(l(v), r(v));
    }
    return left;
  }
  function sum(): Node {
    let left = product();
    while (peek() === "+" || peek() === "-") {
      const op = tokens[i++];
      const l = left;
      const r = product();
      left = op === "+" ? (v) => l(v) + r(v) : (v) => l(v) - r(v);
    }
    return left;
  }
  const root = sum();
  if (i !== tokens.length) throw new RuleSyntaxError(`unexpected "${tokens[i]}" in rule "${src}"`);
  return root;
}

/** Rules UserRL writes: only a, b, c, d, numbers and + - * / ** ( ) — evaluated exactly as Python's eval would. */
const PYTHON_ARITHMETIC_RULE = /^[abcd\d\s.+\-*/()]+$/;

/**
 * The rule's value on four inputs as UserRL's `eval` gives it: Python arithmetic on the inputs as given — ints
 * (bigint) keep Python's exact integer arithmetic, floats its float arithmetic (UserRL parses probes as floats). The
 * rules of this project's own task files (min, max, abs, %) are evaluated on floats. Throws RangeError with Python's
 * message where Python raises (division by zero, overflow).
 */
export function ruleValue(rule: string, inputs: readonly PyNum[]): PyNum {
  compileRule(rule); // the syntax check, with this module's messages
  const [a, b, c, d] = inputs;
  if (!PYTHON_ARITHMETIC_RULE.test(rule)) return compileRule(rule)({ a: Number(a), b: Number(b), c: Number(c), d: Number(d) });
  try {
    return evalPythonArithmetic(rule, { a, b, c, d });
  } catch (e) {
    if (e instanceof PythonEvalError) throw new RangeError(e.message);
    throw e;
  }
}

/** Integers as Python ints (a task file's test case), other numbers as floats. */
export const asPythonNumbers = (xs: readonly number[]): PyNum[] => xs.map((x) => (Number.isSafeInteger(x) ? BigInt(x) : x));

/** Applies a rule to four numbers; throws on a non-finite result (e.g. division by zero). */
export function applyRule(rule: string, numbers: number[]): number {
  const value = Number(ruleValue(rule, asPythonNumbers(numbers)));
  if (!Number.isFinite(value)) throw new RangeError("the result is not a finite number (division by zero?)");
  return Math.round(value * 1e4) / 1e4;
}
