/**
 * MathAPI: stateless arithmetic and unit conversion (BFCL func_doc `math_api.json`). Results are {"result": x} or
 * {"error": "..."}. Results that are floats in Python whatever the inputs (true division, square roots, float
 * factors) are marked so, and print as `37.0`; logarithm computes at the requested precision, as gorilla's mpmath
 * does; square_root computes Python's Decimal root at the requested precision (decimal-sqrt.ts).
 */
import { PyOpaque, pyFloat, pythonRound } from "../../../../lib/python-json";
import { pyFloatPower } from "./py-values";
import { decimalSqrt } from "./decimal-sqrt";
import { ApiError, method, num, list, type ApiInstance } from "./api-types";
import { mpmathLogRatio } from "./mpmath-log";

const LENGTH_IN_METERS: Record<string, number> = { km: 1000, m: 1, cm: 0.01, mm: 0.001, um: 1e-6, nm: 1e-9 };
const IMPERIAL: Record<string, number> = {
  cm_to_in: 0.393701,
  in_to_cm: 2.54,
  m_to_ft: 3.28084,
  ft_to_m: 0.3048,
  m_to_yd: 1.09361,
  yd_to_m: 0.9144,
  km_to_miles: 0.621371,
  miles_to_km: 1.60934,
  kg_to_lb: 2.20462,
  lb_to_kg: 0.453592,
  celsius_to_fahrenheit: 1.8,
  fahrenheit_to_celsius: 5 / 9,
};

function numbers(v: unknown): number[] | { error: string } {
  const xs = list(v, "numbers");
  if (xs.length === 0) return { error: "empty" };
  if (!xs.every((x) => typeof x === "number")) return { error: "All elements in the list must be numbers" };
  return xs as number[];
}

/** A list statistic with BFCL's messages for an empty list / non-numbers. */
function aggregate(empty: string, fn: (xs: number[]) => number | ReturnType<typeof pyFloat>) {
  return method(["numbers"], (a) => {
    const xs = numbers(a.numbers);
    if (!Array.isArray(xs)) return { error: xs.error === "empty" ? empty : xs.error };
    return { result: fn(xs) };
  });
}

/**
 * A two-number method as gorilla writes them: the result, or its own error when the computation says so; arguments
 * that are not numbers get gorilla's TypeError answer.
 */
function twoNumbers(fn: (x: number, y: number) => unknown, params: [string, string] = ["a", "b"]) {
  return method(params, (a) => {
    const [x, y] = [a[params[0]], a[params[1]]];
    if (typeof x !== "number" || typeof y !== "number") return { error: "Both inputs must be numbers" };
    const r = fn(x, y);
    return r !== null && typeof r === "object" && "error" in r ? r : { result: r };
  });
}

export function createMathApi(): ApiInstance {
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  return {
    className: "MathAPI",
    state: () => ({}),
    methods: {
      logarithm: method(["value", "base", "precision"], (a) => {
        const r = mpmathLogRatio(num(a.value, "value"), num(a.base, "base"), num(a.precision, "precision"));
        return "error" in r ? r : { result: r };
      }),
      mean: aggregate("Cannot calculate mean of an empty list", (xs) => pyFloat(mean(xs))),
      standard_deviation: aggregate("Cannot calculate standard deviation of an empty list", (xs) => {
        const m = mean(xs);
        return pyFloat(Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / xs.length));
      }),
      si_unit_conversion: method(["value", "unit_in", "unit_out"], (a) => {
        if (typeof a.value !== "number") return { error: "Value must be a number" };
        const from = LENGTH_IN_METERS[String(a.unit_in)];
        const to = LENGTH_IN_METERS[String(a.unit_out)];
        if (from === undefined || to === undefined)
          return { error: `Conversion from '${String(a.unit_in)}' to '${String(a.unit_out)}' is not supported` };
        return { result: pyFloat(a.value * from * (1 / to)) };
      }),
      imperial_si_conversion: method(["value", "unit_in", "unit_out"], (a) => {
        if (typeof a.value !== "number") return { error: "Value must be a number" };
        if (a.unit_in === a.unit_out) return { result: a.value };
        const key = `${String(a.unit_in)}_to_${String(a.unit_out)}`;
        const factor = IMPERIAL[key];
        if (factor === undefined) return { error: `Conversion from '${String(a.unit_in)}' to '${String(a.unit_out)}' is not supported` };
        if (key === "celsius_to_fahrenheit") return { result: pyFloat(a.value * factor + 32) };
        if (key === "fahrenheit_to_celsius") return { result: pyFloat((a.value - 32) * factor) };
        return { result: pyFloat(a.value * factor) };
      }),
      add: twoNumbers((x, y) => x + y),
      subtract: twoNumbers((x, y) => x - y),
      multiply: twoNumbers((x, y) => x * y),
      divide: twoNumbers((x, y) => (y === 0 ? { error: "Cannot divide by zero" } : pyFloat(x / y))),
      power: twoNumbers(
        (x, y) => {
          const r = pyFloatPower(x, y);
          return typeof r === "number" ? pyFloat(r) : new PyOpaque(r.complex);
        },
        ["base", "exponent"],
      ),
      square_root: method(["number", "precision"], (a) => {
        // gorilla compares, sets the decimal context's precision, then takes Decimal's root; TypeErrors become its error.
        const invalid = { error: "Input must be a number or computation resulted in an invalid operation" };
        const [number, precision] = [a.number, typeof a.precision === "boolean" ? Number(a.precision) : a.precision];
        if (typeof number !== "number" && typeof number !== "boolean") return invalid;
        if (Number(number) < 0) return { error: "Cannot calculate square root of a negative number" };
        if (typeof precision !== "number" || !Number.isInteger(precision)) return invalid;
        if (precision < 1) throw new ApiError("valid range for prec is [1, MAX_PREC]");
        return { result: new PyOpaque(`Decimal('${decimalSqrt(Number(number), precision)}')`) };
      }),
      absolute_value: method(["number"], (a) => ({ result: Math.abs(num(a.number, "number")) })),
      round_number: method(["number", ["decimal_places", 0]], (a) =>
        typeof a.number === "number" && Number.isInteger(a.decimal_places)
          ? { result: pythonRound(a.number, a.decimal_places as number) }
          : { error: "First input must be a number, second input must be an integer" },
      ),
      percentage: twoNumbers((x, y) => (y === 0 ? { error: "Whole value cannot be zero" } : pyFloat((x / y) * 100)), ["part", "whole"]),
      min_value: aggregate("Cannot find minimum of an empty list", (xs) => Math.min(...xs)),
      max_value: aggregate("Cannot find maximum of an empty list", (xs) => Math.max(...xs)),
      sum_values: aggregate("Cannot calculate sum of an empty list", (xs) => xs.reduce((s, x) => s + x, 0)),
    },
  };
}
