/**
 * Python's view of the JSON values the API ports handle, for the texts gorilla's classes produce off the gold path:
 * `str()` of a value in an f-string, a type's name in Python's error messages, a KeyError's text, and float `**`.
 */
import { pythonRepr } from "../../../../lib/python-json";
import { ApiError } from "./api-types";

/** `str(v)`, as an f-string shows an argument: text as is, None / True / [1, 'a'] / {'k': 2} / 2.5 otherwise. */
export function pyStr(v: unknown): string {
  return typeof v === "string" ? v : pythonRepr(v);
}

/** The Python type name of a JSON value, as Python's error messages name it. */
export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (typeof v === "string") return "str";
  return Array.isArray(v) ? "list" : "dict";
}

/** Python's truthiness of a JSON value: None, False, 0, "", [] and {} are false. */
export function pyTruthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v !== null && typeof v === "object") return Object.keys(v).length > 0;
  return Boolean(v);
}

/** `d[key]` on a dict without it: Python raises KeyError, shown as the key's repr. */
export function keyError(key: string): ApiError {
  return new ApiError(pythonRepr(key));
}

/** `v.lower()` as Python runs it: an AttributeError for anything but a str. */
export function pyLower(v: unknown): string {
  if (typeof v !== "string") throw new ApiError(`'${pyTypeName(v)}' object has no attribute 'lower'`);
  return v.toLowerCase();
}

/** Python's repr of a complex number: `(re+imj)`, or `imj` alone when the real part is +0; integral parts without ".0". */
function complexRepr(re: number, im: number): string {
  const part = (x: number) =>
    Number.isNaN(x) ? "nan" : !Number.isFinite(x) ? (x > 0 ? "inf" : "-inf") : pythonRepr(x).replace(/\.0$/, "");
  if (re === 0 && !Object.is(re, -0)) return `${part(im)}j`;
  const imText = part(im);
  return `(${part(re)}${imText.startsWith("-") ? "" : "+"}${imText}j)`;
}

/** x^n for an integral n, correctly rounded as C's pow gives it (V8's `**` can be an ulp off: 100 ** -2). */
function integralPower(x: number, n: number): number | null {
  if (!Number.isInteger(n) || Math.abs(n) > 1100 || !Number.isFinite(x) || x === 0) return null;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n);
  const mantissa = biased === 0 ? bits & ((1n << 52n) - 1n) : (bits & ((1n << 52n) - 1n)) | (1n << 52n);
  const exp = BigInt(((biased === 0 ? 1 : biased) - 1075) * Math.abs(n));
  let num = mantissa ** BigInt(Math.abs(n));
  let den = 1n;
  if (exp > 0n) num <<= exp;
  else den <<= -exp;
  if (n < 0) [num, den] = [den, num];
  // 40 significant digits, then a sticky digit when the division is inexact: enough for the parser to round right.
  const digits = (num * 10n ** 40n) / den;
  const inexact = digits * den !== num * 10n ** 40n;
  const value = Number(`${digits}${inexact ? "1" : "0"}e-41`);
  return x < 0 && n % 2 !== 0 ? -value : value;
}

/**
 * `base ** exponent` as Python computes it on floats (gorilla's `power` works on floats): 0 to a negative power
 * raises, a negative base to a fractional power gives a complex number, an overflow raises.
 */
export function pyFloatPower(base: number, exponent: number): number | { complex: string } {
  if (base === 0 && exponent < 0) throw new ApiError("0.0 cannot be raised to a negative power");
  if (base < 0 && Number.isFinite(exponent) && !Number.isInteger(exponent)) {
    // CPython's complex power: |a|^b at angle atan2(0, a) × b.
    const length = Math.abs(base) ** exponent;
    const phase = Math.atan2(0, base) * exponent;
    return { complex: complexRepr(length * Math.cos(phase), length * Math.sin(phase)) };
  }
  const result = integralPower(base, exponent) ?? base ** exponent;
  if (!Number.isFinite(result) && Number.isFinite(base) && Number.isFinite(exponent)) {
    throw new ApiError("(34, 'Numerical result out of range')");
  }
  return result;
}
