/** Argument and fact matching shared by the offline tool simulator and the offline judge. */

export type ArgumentMatch = "exact" | "lenient";

function normalise(v: unknown): unknown {
  if (typeof v === "string") {
    const t = v.trim().toLowerCase();
    const n = Number(t);
    return t !== "" && Number.isFinite(n) ? n : t.replace(/\s+/g, " ");
  }
  if (Array.isArray(v)) return v.map(normalise);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, normalise(x)]));
  }
  return v;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(
      Object.keys(v as Record<string, unknown>)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/**
 * Whether a call's arguments satisfy the expected ones. "exact": same keys, same values. "lenient": every expected
 * key present with a value equal after trimming/lower-casing/number parsing; extra arguments are allowed.
 */
export function argumentsMatch(expected: Record<string, unknown>, actual: Record<string, unknown>, mode: ArgumentMatch): boolean {
  if (mode === "exact") return deepEqual(expected, actual);
  return Object.entries(expected).every(([k, v]) => k in actual && deepEqual(normalise(v), normalise(actual[k])));
}

export function mentions(text: string, fact: string): boolean {
  return text.toLowerCase().includes(fact.trim().toLowerCase());
}

export function canonicalCall(name: string, args: Record<string, unknown>): string {
  return `${name}:${JSON.stringify(sortKeys(normalise(args)))}`;
}
