/**
 * What an importer makes of another system's files: one external run, its per-step metrics, its samples, and the
 * records it could not read (named by file and line; the rest of the import is kept).
 */
import type { ExternalRunInput, TrajectoryInput } from "../ingest";

export interface ImportProblem {
  file: string;
  /** 1-based line for JSONL files; omitted for whole-file problems. */
  line?: number;
  message: string;
}

export interface ImportedRun {
  run: ExternalRunInput;
  steps: { step: number; metrics: Record<string, number> }[];
  trajectories: TrajectoryInput[];
  /** Records that could not be read and were left out. */
  problems: ImportProblem[];
  /** What was changed on the way in without losing a record (e.g. an API key left out of the config). */
  notes?: ImportProblem[];
}

/** One input file as the importer sees it: a path relative to what the user named, and its text. */
export interface ImportFile {
  path: string;
  text: string;
  /** Why a binary file could not be decoded (read-file.ts); the importer reports it and reads the rest. */
  unreadable?: string;
}

/** Mean of each step's scored rewards as `reward/mean` (plus the scored count), for the run's curves. */
export function rewardCurve(trajectories: TrajectoryInput[]): ImportedRun["steps"] {
  const byStep = new Map<number, number[]>();
  for (const t of trajectories) {
    if (t.split === "eval" || t.reward === null || t.reward === undefined) continue;
    byStep.set(t.step, [...(byStep.get(t.step) ?? []), t.reward]);
  }
  return [...byStep.entries()]
    .sort(([a], [b]) => a - b)
    .map(([step, rs]) => ({ step, metrics: { "reward/mean": rs.reduce((a, b) => a + b, 0) / rs.length, "reward/scored": rs.length } }));
}

/**
 * JSON as Python's json module writes it: NaN, Infinity and -Infinity (which it emits for float('nan') scores)
 * become null, i.e. "no value" — a NaN reward is unscored, never 0. Tokens inside strings are left alone.
 */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!/NaN|Infinity/.test(text)) throw err;
    return JSON.parse(text.replace(/("(?:[^"\\]|\\.)*")|-?\b(?:NaN|Infinity)\b/g, (match, str: string | undefined) => str ?? "null"));
  }
}

/** Splits JSONL text into parsed records, naming each unreadable line. Blank lines are skipped. */
export function jsonLines(file: ImportFile, problems: ImportProblem[]): { line: number; value: Record<string, unknown> }[] {
  const out: { line: number; value: Record<string, unknown> }[] = [];
  file.text.split("\n").forEach((raw, i) => {
    if (!raw.trim()) return;
    try {
      const value = parsePythonJson(raw);
      if (value && typeof value === "object" && !Array.isArray(value)) out.push({ line: i + 1, value: value as Record<string, unknown> });
      else problems.push({ file: file.path, line: i + 1, message: "not a JSON object" });
    } catch (err) {
      problems.push({ file: file.path, line: i + 1, message: `not valid JSON (${(err as Error).message})` });
    }
  });
  return out;
}
