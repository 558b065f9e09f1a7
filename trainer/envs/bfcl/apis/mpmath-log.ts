/**
 * gorilla's `logarithm(value, base, precision)` sets mpmath's working precision to `precision` decimal digits and
 * returns `mpmath.log(value) / mpmath.log(base)`: an mpf, which json.dumps cannot serialize, so the model reads
 * `{'result': mpf('2.0')}` (Python's str of the dict). This reproduces mpmath's arithmetic at that precision (each
 * operation rounded to the same number of bits, to nearest) and its repr (`to_str` with `repr_dps` digits).
 */
import { PyOpaque } from "../../../../lib/python-json";

/** mpmath's `dps_to_prec`: bits for n decimal digits. */
const dpsToPrec = (n: number) => Math.max(1, Math.round((Math.trunc(n) + 1) * 3.3219280948873626));
/** mpmath's `prec_to_dps` and `repr_dps`: digits an n-bit number needs to print uniquely. */
const precToDps = (n: number) => Math.max(1, Math.round(Math.trunc(n) / 3.3219280948873626) - 1);
const reprDps = (prec: number) => (precToDps(prec) === 15 ? 17 : precToDps(prec) + 3);

/** x rounded to `bits` significant bits, ties to even (mpmath's round_nearest). */
function roundToBits(x: number, bits: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  let exp = Math.floor(Math.log2(Math.abs(x)));
  if (2 ** exp > Math.abs(x)) exp -= 1;
  if (2 ** (exp + 1) <= Math.abs(x)) exp += 1;
  const scale = 2 ** (bits - 1 - exp);
  const y = x * scale;
  let r = Math.round(y);
  if (Math.abs(y - Math.trunc(y)) === 0.5) r = 2 * Math.round(y / 2);
  return r / scale;
}

/** The exact decimal digits of a finite non-zero double and the power of ten of its leading digit. */
function exactDecimal(x: number): { digits: string; exponent: number } {
  let y = Math.abs(x);
  let k = 0;
  while (!Number.isInteger(y)) {
    y *= 2;
    k++;
  }
  const digits = (BigInt(y) * 5n ** BigInt(k)).toString();
  return { digits: digits.replace(/0+$/, "") || "0", exponent: digits.length - k - 1 };
}

/** mpmath's `to_str(x, dps)` with its defaults (fixed notation near unit magnitude, trailing zeros stripped). */
function mpmathToStr(x: number, dps: number): string {
  if (x === 0) return "0.0";
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "+inf" : "-inf";
  const sign = x < 0 ? "-" : "";
  let { digits, exponent } = exactDecimal(x);
  digits = digits.slice(0, dps + 3); // to_digits_exp truncates
  if (digits.length > dps && "56789".includes(digits[dps])) {
    digits = digits.slice(0, dps);
    let i = dps - 1;
    while (i >= 0 && digits[i] === "9") i--;
    if (i >= 0) digits = digits.slice(0, i) + String(Number(digits[i]) + 1) + "0".repeat(dps - i - 1);
    else {
      digits = "1" + "0".repeat(dps - 1);
      exponent += 1;
    }
  } else digits = digits.slice(0, dps);
  const minFixed = Math.min(-Math.floor(dps / 3), -5);
  let split = 1;
  if (minFixed < exponent && exponent < dps) {
    if (exponent < 0) digits = "0".repeat(-exponent) + digits;
    else {
      split = exponent + 1;
      if (split > dps) digits += "0".repeat(split - dps);
    }
    exponent = 0;
  }
  let text = `${digits.slice(0, split)}.${digits.slice(split)}`.replace(/0+$/, "");
  if (text.endsWith(".")) text += "0";
  if (exponent === 0) return sign + text;
  return `${sign}${text}e${exponent > 0 ? "+" : ""}${exponent}`;
}

/** `mpmath.log(value) / mpmath.log(base)` at `precision` decimal digits, as the mpf object gorilla returns. */
export function mpmathLogRatio(value: number, base: number, precision: number): PyOpaque | { error: string } {
  const prec = dpsToPrec(precision);
  const num = roundToBits(Math.log(value), prec);
  const den = roundToBits(Math.log(base), prec);
  if (den === 0) return { error: "division by zero" };
  return new PyOpaque(`mpf('${mpmathToStr(roundToBits(num / den, prec), reprDps(prec))}')`);
}
