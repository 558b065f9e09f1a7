/**
 * Pydantic v2's lax validation of flat models, and its ValidationError text, for the few models Python tools build
 * from an agent's arguments (τ²'s airline tools build `Passenger(**p)`, `Payment(**p)`, `Reservation(...)`). The
 * agent sees that text as the tool's error, so it is reproduced as pydantic 2.13 prints it: every failing field in
 * declaration order, Python reprs of the input (long ones cut in the middle as pydantic cuts them), and the docs
 * link. Only the checks those models need: str, int, float and literal fields, required or defaulted.
 */
import { PyFloat, pythonRepr } from "./python-json";

/** The pydantic version whose messages are reproduced (its docs links carry the major.minor). */
const PYDANTIC_DOCS = "https://errors.pydantic.dev/2.13/v";

export type FieldSpec = "str" | "int" | "float" | { literal: readonly string[] } | { any: true };

export interface FlatModel {
  name: string;
  fields: readonly (readonly [string, FieldSpec, { default?: unknown }?])[];
}

export class PydanticValidationError extends Error {}

/** Python's type name of a JSON value (pydantic's `input_type`). */
export function pythonTypeName(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (v instanceof PyFloat) return "float";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (typeof v === "string") return "str";
  if (Array.isArray(v)) return "list";
  return "dict";
}

/** pydantic-core's repr of an input: longer than 50 characters, the first 25 and last 24 around "...". */
function inputRepr(v: unknown): string {
  const r = pythonRepr(v);
  return r.length > 50 ? `${r.slice(0, 25)}...${r.slice(-24)}` : r;
}

interface FieldError {
  field: string;
  message: string;
  type: string;
  input: unknown;
}

/** Python's `'a', 'b' or 'c'` listing of literal choices. */
function orList(values: readonly string[]): string {
  const quoted = values.map((v) => pythonRepr(v));
  return quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

function checkField(spec: FieldSpec, v: unknown): { value: unknown } | { message: string; type: string } {
  if (typeof spec === "object" && "any" in spec) return { value: v };
  if (typeof spec === "object") {
    return typeof v === "string" && spec.literal.includes(v)
      ? { value: v }
      : { message: `Input should be ${orList(spec.literal)}`, type: "literal_error" };
  }
  const num = v instanceof PyFloat ? v.value : v;
  switch (spec) {
    case "str":
      return typeof v === "string" ? { value: v } : { message: "Input should be a valid string", type: "string_type" };
    case "int":
      if (typeof num === "boolean") return { value: num ? 1 : 0 };
      if (typeof num === "number") {
        return Number.isInteger(num)
          ? { value: num }
          : { message: "Input should be a valid integer, got a number with a fractional part", type: "int_from_float" };
      }
      if (typeof num === "string") {
        return /^\s*[+-]?\d+\s*$/.test(num)
          ? { value: Number(num) }
          : { message: "Input should be a valid integer, unable to parse string as an integer", type: "int_parsing" };
      }
      return { message: "Input should be a valid integer", type: "int_type" };
    case "float":
      if (typeof num === "boolean") return { value: num ? 1 : 0 };
      if (typeof num === "number") return { value: num };
      if (typeof num === "string" && num.trim() !== "" && Number.isFinite(Number(num))) return { value: Number(num) };
      if (typeof num === "string")
        return { message: "Input should be a valid number, unable to parse string as a number", type: "float_parsing" };
      return { message: "Input should be a valid number", type: "float_type" };
  }
}

/**
 * `Model(**input)`: the validated record (fields in declaration order, extra keys dropped as pydantic drops them),
 * or a PydanticValidationError with pydantic's text.
 */
export function validateFlat(model: FlatModel, input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const [field, spec, opts] of model.fields) {
    if (!(field in input) || input[field] === undefined) {
      if (opts && "default" in opts) out[field] = opts.default;
      else errors.push({ field, message: "Field required", type: "missing", input });
      continue;
    }
    const checked = checkField(spec, input[field]);
    if ("value" in checked) out[field] = checked.value;
    else errors.push({ field, ...checked, input: input[field] });
  }
  if (errors.length > 0) {
    const lines = [`${errors.length} validation error${errors.length > 1 ? "s" : ""} for ${model.name}`];
    for (const e of errors) {
      lines.push(
        e.field,
        `  ${e.message} [type=${e.type}, input_value=${inputRepr(e.input)}, input_type=${pythonTypeName(e.input)}]`,
        `    For further information visit ${PYDANTIC_DOCS}/${e.type}`,
      );
    }
    throw new PydanticValidationError(lines.join("\n"));
  }
  return out;
}
