/**
 * How gorilla's executor turns a function's return value into the text the model sees and the response checker
 * compares: strings as they are, dicts through `json.dumps` (", " and ": " separators, non-ASCII escaped) or, when
 * json.dumps fails (an mpmath number inside), through `str()`; anything else through `str()`.
 */
import { NotJsonSerializableError, pythonJsonDumps, pythonRepr } from "../../../lib/python-json";
import { withKeyOrderOf } from "../../../lib/ordered-json";

/** Python has no sets in JSON; the APIs' sets are shown as lists. */
function withoutSets(v: unknown): unknown {
  if (v instanceof Set) return [...v].map(withoutSets);
  if (Array.isArray(v)) return v.map(withoutSets);
  if (v !== null && typeof v === "object" && v.constructor === Object) {
    const copy = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, withoutSets(x)]));
    return withKeyOrderOf(copy, v);
  }
  return v;
}

export function formatExecutionResult(v: unknown): string {
  if (typeof v === "string") return v;
  const value = withoutSets(v);
  if (value !== null && typeof value === "object" && !Array.isArray(value) && value.constructor === Object) {
    try {
      return pythonJsonDumps(value, "any");
    } catch (e) {
      if (!(e instanceof NotJsonSerializableError)) throw e;
      return pythonRepr(value);
    }
  }
  return pythonRepr(value);
}
