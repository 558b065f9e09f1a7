/**
 * Config columns of the runs table: any scalar setting of the run configs ("grpo.learningRate", "policy.model")
 * shown and sorted as a column, chosen by the user and kept in the URL (`cols=grpo.learningRate,policy.model`).
 */
import { flattenJson } from "./state-diff";

export type ConfigValue = string | number | boolean | null;
export type ConfigLeaves = Record<string, ConfigValue>;

/** The scalar leaves of a config by path; arrays and objects are not columns (a list of stages is not one value). */
export function configLeaves(config: unknown): ConfigLeaves {
  const out: ConfigLeaves = {};
  for (const [path, v] of flattenJson(config)) {
    if (path.includes("[")) continue;
    if (v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[path] = v;
  }
  return out;
}

/** Paths worth offering as columns: those whose value differs between the listed runs come first (they explain results). */
export function columnChoices(runs: readonly ConfigLeaves[]): { varying: string[]; constant: string[] } {
  const values = new Map<string, Set<string>>();
  for (const leaves of runs)
    for (const [p, v] of Object.entries(leaves)) values.set(p, (values.get(p) ?? new Set()).add(JSON.stringify(v)));
  const paths = [...values.keys()].sort();
  // A path missing from some runs differs between them too.
  const varies = (p: string) => values.get(p)!.size > 1 || runs.some((r) => !(p in r));
  return { varying: paths.filter(varies), constant: paths.filter((p) => !varies(p)) };
}

/** The `cols` URL parameter: config paths, comma-separated; anything that is not a plain dotted path is dropped. */
export function parseColumns(param: string | null): string[] {
  if (!param) return [];
  const seen = new Set<string>();
  for (const p of param.split(",")) if (/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(p) && seen.size < 12) seen.add(p);
  return [...seen];
}

export function formatConfigValue(v: ConfigValue | undefined): string {
  if (v === undefined || v === null) return "—";
  if (typeof v === "number") return Number.isInteger(v) || Math.abs(v) >= 1e-3 ? String(v) : v.toExponential(1);
  return String(v);
}
