/**
 * Structural diffs of JSON values, as flattened key paths (`reservation.day`, `items[2].qty`).
 *
 * Used for two things a person reads: the final environment state against the expected state in the trajectory
 * inspector (tau-bench grades an episode by comparing the final database with the one produced by the gold
 * actions, so "which fields ended up different" is the explanation of a 0 reward), and the config difference
 * between runs on the compare page. Pure: no I/O.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function joinKey(prefix: string, key: string): string {
  if (IDENTIFIER.test(key)) return prefix ? `${prefix}.${key}` : key;
  return `${prefix}[${JSON.stringify(key)}]`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Every leaf of `value` keyed by its path, in document order. A leaf is a primitive, or an empty object/array
 * (kept so that `{}` against a missing key stays visible). `undefined` values are skipped (JSON has none);
 * a top-level primitive is returned under the empty path "".
 */
export function flattenJson(value: unknown, prefix = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const walk = (v: unknown, path: string) => {
    if (v === undefined) return;
    if (Array.isArray(v)) {
      if (v.length === 0) out.set(path, []);
      v.forEach((item, i) => walk(item, `${path}[${i}]`));
    } else if (isPlainObject(v)) {
      const keys = Object.keys(v);
      if (keys.length === 0) out.set(path, {});
      for (const k of keys) walk(v[k], joinKey(path, k));
    } else {
      out.set(path, v);
    }
  };
  walk(value, prefix);
  return out;
}

function isEmptyContainer(v: unknown): boolean {
  return (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

/** Leaves are equal when their JSON is equal (so `{}` equals `{}`, and 1 equals 1.0). */
export function leafEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return JSON.stringify(a) === JSON.stringify(b);
}

export type StateDiffKind = "equal" | "changed" | "missing" | "unexpected";

export interface StateDiffEntry {
  path: string;
  /** missing: expected has it, the final state does not; unexpected: only the final state has it. */
  kind: StateDiffKind;
  expected?: unknown;
  actual?: unknown;
}

export interface StateDiffSummary {
  matches: boolean;
  equal: number;
  changed: number;
  missing: number;
  unexpected: number;
}

/**
 * Compare the final state with the expected one, leaf by leaf. Entries follow the expected state's order, then
 * the leaves only the final state has. Equal leaves are included only on request (the inspector collapses them).
 */
export function diffStates(expected: unknown, actual: unknown, options: { includeEqual?: boolean } = {}): StateDiffEntry[] {
  // A state that was never recorded (null) has no fields, rather than being one null leaf at the root.
  const exp = expected == null ? new Map<string, unknown>() : flattenJson(expected);
  const act = actual == null ? new Map<string, unknown>() : flattenJson(actual);
  const entries: StateDiffEntry[] = [];
  for (const [path, e] of exp) {
    if (!act.has(path)) entries.push({ path, kind: "missing", expected: e });
    else if (!leafEqual(e, act.get(path))) entries.push({ path, kind: "changed", expected: e, actual: act.get(path) });
    else if (options.includeEqual) entries.push({ path, kind: "equal", expected: e, actual: act.get(path) });
  }
  for (const [path, a] of act) {
    if (!exp.has(path)) entries.push({ path, kind: "unexpected", actual: a });
  }
  return entries;
}

export function summarizeStateDiff(expected: unknown, actual: unknown): StateDiffSummary {
  const entries = diffStates(expected, actual, { includeEqual: true });
  const count = (k: StateDiffKind) => entries.filter((e) => e.kind === k).length;
  const summary = { equal: count("equal"), changed: count("changed"), missing: count("missing"), unexpected: count("unexpected") };
  return { ...summary, matches: summary.changed + summary.missing + summary.unexpected === 0 };
}

/**
 * What the inspector's "final vs expected state" shows. An environment declares what is comparable by the top-level
 * keys both states share (guess-number's `answer`, τ²'s tables, simulated's `calls`); keys on one side only are its
 * bookkeeping (turns taken, format errors) or a spec with nothing to match it (calls that must not be made), shown
 * as recorded but never counted as missing or unexpected — which marked solved episodes red.
 */
export type StateComparison =
  | { kind: "none" }
  | { kind: "no-expected"; actual: unknown }
  | { kind: "no-final"; expected: unknown }
  /** Both recorded, no key in common: they describe different things. */
  | { kind: "unrelated"; expected: unknown; actual: unknown }
  | {
      kind: "compared";
      /** The shared top-level keys compared, or null when the states were compared whole (lists, primitives). */
      keys: string[] | null;
      entries: StateDiffEntry[];
      summary: StateDiffSummary;
      expectedOnly: Record<string, unknown>;
      finalOnly: Record<string, unknown>;
    };

export function compareStates(expected: unknown, actual: unknown): StateComparison {
  if (expected == null && actual == null) return { kind: "none" };
  if (expected == null) return { kind: "no-expected", actual };
  if (actual == null) return { kind: "no-final", expected };
  if (!isPlainObject(expected) || !isPlainObject(actual)) {
    return { kind: "compared", keys: null, ...diffWithSummary(expected, actual), expectedOnly: {}, finalOnly: {} };
  }
  const keys = Object.keys(expected).filter((k) => Object.hasOwn(actual, k));
  if (keys.length === 0) return { kind: "unrelated", expected, actual };
  const pick = (o: Record<string, unknown>, wanted: boolean) =>
    Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k) === wanted));
  return {
    kind: "compared",
    keys,
    ...diffWithSummary(pick(expected, true), pick(actual, true)),
    expectedOnly: pick(expected, false),
    finalOnly: pick(actual, false),
  };
}

function diffWithSummary(expected: unknown, actual: unknown): { entries: StateDiffEntry[]; summary: StateDiffSummary } {
  return { entries: diffStates(expected, actual, { includeEqual: true }), summary: summarizeStateDiff(expected, actual) };
}

export interface MultiDiffRow {
  path: string;
  /** One value per input, `undefined` where that input lacks the path. */
  values: unknown[];
}

/**
 * Paths whose leaf differs between any of several values (e.g. run configs): a path present in some and absent
 * in others counts as different (with `emptyIsAbsent`, an empty list or object is absent). Rows are in first-seen
 * order across the inputs.
 */
export function diffManyJson(
  values: unknown[],
  options: { emptyIsAbsent?: boolean } = {},
): { differing: MultiDiffRow[]; sameCount: number } {
  const flat = values.map((v) => {
    const leaves = flattenJson(v);
    // `tags: []` against a config without tags says nothing about how the runs differ.
    if (options.emptyIsAbsent) for (const [path, leaf] of leaves) if (isEmptyContainer(leaf)) leaves.delete(path);
    return leaves;
  });
  const paths: string[] = [];
  const seen = new Set<string>();
  for (const f of flat) {
    for (const p of f.keys()) {
      if (!seen.has(p)) {
        seen.add(p);
        paths.push(p);
      }
    }
  }
  const differing: MultiDiffRow[] = [];
  let sameCount = 0;
  for (const path of paths) {
    const row = flat.map((f) => (f.has(path) ? f.get(path) : undefined));
    const allPresent = flat.every((f) => f.has(path));
    const allEqual = allPresent && row.every((v) => leafEqual(v, row[0]));
    if (allEqual) sameCount++;
    else differing.push({ path, values: row });
  }
  return { differing, sameCount };
}
