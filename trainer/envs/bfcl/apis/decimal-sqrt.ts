/**
 * gorilla's `square_root(number, precision)`: `getcontext().prec = precision; Decimal(number).sqrt()`, a Decimal the
 * executor cannot json.dumps, so the model reads `{'result': Decimal('1.936')}`. This is Python's decimal module on
 * that path: the float converted exactly, the square root correctly rounded to `precision` significant digits (half
 * even), exact roots at their ideal exponent (`sqrt(100)` at precision 1 is `1E+1`), and Decimal's str().
 */

/** A Decimal: sign, coefficient digits, exponent (value = ±coefficient × 10^exponent). */
interface Dec {
  negative: boolean;
  coefficient: bigint;
  exponent: number;
}

/** Decimal(x) for a double: its exact value (Decimal.from_float). */
function fromNumber(x: number): Dec {
  const negative = x < 0 || Object.is(x, -0);
  let y = Math.abs(x);
  let k = 0;
  while (!Number.isInteger(y)) {
    y *= 2;
    k++;
  }
  // x = y / 2^k = y × 5^k / 10^k exactly.
  return { negative, coefficient: BigInt(y) * 5n ** BigInt(k), exponent: -k };
}

const digits = (n: bigint) => n.toString().length;

/** floor(sqrt(c)) by Newton's method, as the decimal module computes it. */
function isqrt(c: bigint, start: bigint): bigint {
  let n = start;
  for (;;) {
    const q = c / n;
    if (n <= q) return n;
    n = (n + q) >> 1n;
  }
}

/** Round the coefficient to `prec` digits, half even (Decimal's _fix within the exponent limits). */
function fix(d: Dec, prec: number): Dec {
  const extra = digits(d.coefficient) - prec;
  if (extra <= 0) return d;
  const scale = 10n ** BigInt(extra);
  let q = d.coefficient / scale;
  const twice = 2n * (d.coefficient % scale);
  if (twice > scale || (twice === scale && q % 2n === 1n)) q += 1n;
  if (digits(q) > prec) return { ...d, coefficient: q / 10n, exponent: d.exponent + extra + 1 };
  return { ...d, coefficient: q, exponent: d.exponent + extra };
}

/** Decimal.sqrt at `prec` digits for a non-negative Decimal (the decimal module's algorithm). */
function sqrt(x: Dec, prec: number): Dec {
  if (x.coefficient === 0n) return fix({ negative: x.negative, coefficient: 0n, exponent: Math.floor(x.exponent / 2) }, prec);
  const p = prec + 1;
  let e = x.exponent >> 1;
  let c = x.coefficient;
  let l: number;
  if (x.exponent & 1) {
    c *= 10n;
    l = (digits(x.coefficient) >> 1) + 1;
  } else l = (digits(x.coefficient) + 1) >> 1;
  const shift = p - l;
  let exact: boolean;
  if (shift >= 0) {
    c *= 100n ** BigInt(shift);
    exact = true;
  } else {
    const div = 100n ** BigInt(-shift);
    exact = c % div === 0n;
    c /= div;
  }
  e -= shift;
  let n = isqrt(c, 10n ** BigInt(p));
  exact &&= n * n === c;
  if (exact) {
    if (shift >= 0) n /= 10n ** BigInt(shift);
    else n *= 10n ** BigInt(-shift);
    e += shift;
  } else if (n % 5n === 0n) n += 1n;
  return fix({ negative: false, coefficient: n, exponent: e }, prec);
}

/** Decimal's str(): plain digits while the exponent is ≤ 0 and the number not tiny, else scientific with "E". */
function decimalStr(d: Dec): string {
  const int = d.coefficient.toString();
  const leftDigits = d.exponent + int.length;
  const dotPlace = d.exponent <= 0 && leftDigits > -6 ? leftDigits : 1;
  let body: string;
  if (dotPlace <= 0) body = `0.${"0".repeat(-dotPlace)}${int}`;
  else if (dotPlace >= int.length) body = int + "0".repeat(dotPlace - int.length);
  else body = `${int.slice(0, dotPlace)}.${int.slice(dotPlace)}`;
  const exp = leftDigits === dotPlace ? "" : `E${leftDigits - dotPlace >= 0 ? "+" : ""}${leftDigits - dotPlace}`;
  return `${d.negative ? "-" : ""}${body}${exp}`;
}

/** The text of `Decimal(number).sqrt()` at `precision` significant digits (number ≥ 0, or -0.0). */
export function decimalSqrt(number: number, precision: number): string {
  const x = fromNumber(number);
  const root = x.coefficient === 0n ? sqrt(x, precision) : sqrt({ ...x, negative: false }, precision);
  return decimalStr(root);
}
