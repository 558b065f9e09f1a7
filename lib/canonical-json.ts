/**
 * JSON with object keys sorted at every level (by UTF-16 code unit, as Array.prototype.sort does) and undefined
 * members left out: equal values give equal strings whatever order their keys were written in. Used wherever two
 * JSON values are compared or hashed (response-cache keys, Idempotency-Key request hashes, state and argument
 * comparisons).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
