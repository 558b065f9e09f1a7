/**
 * Runs grouped by config settings, read as W&B reads a group: runs that share the chosen settings (typically all
 * but the seed) become one curve, the mean across them, with a band for their spread. This is how RL results are
 * judged: one seed's curve says little, the spread across seeds says whether a change is real.
 *
 * Alignment: each run's points stay on its own steps. Where the runs' steps together number at most `maxBuckets`,
 * a group point is one step and averages the runs that logged it; past that, the step range is cut into equal
 * buckets, each run contributes the mean of its points in a bucket, and the bucket's x is the mean of those points'
 * steps. A run that stopped early simply stops contributing: each point says how many runs (`n`) it averages.
 *
 * Spread: "std" is the sample standard deviation (n − 1, as W&B, numpy's ddof=1 and pandas' default), "sem" that
 * divided by √n, "minmax" the lowest and highest run. A point averaging one run has no band.
 */
export type BandKind = "std" | "sem" | "minmax";
export const BAND_KINDS: BandKind[] = ["std", "sem", "minmax"];
export const BAND_LABELS: Record<BandKind, string> = { std: "± std", sem: "± std. error", minmax: "min – max" };

export interface RunGroup {
  /** "lr=0.001 · kl.coef=0.05"; "all runs" when grouped by nothing that differs. */
  label: string;
  runIds: string[];
}

export interface DiffRow {
  path: string;
  /** Per run (in the page's run order), the setting as JSON text, or null where the run lacks it. */
  values: (string | null)[];
}

interface Point {
  step: number;
  value: number;
}

export interface GroupPoint {
  step: number;
  mean: number;
  /** The band's ends, or null where fewer than two runs have a value. */
  band: [number, number] | null;
  n: number;
}

/** A setting's value as a label shows it: strings without their quotes, absent as "absent". */
function shown(value: string | null): string {
  if (value === null) return "absent";
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === "string" ? parsed : value;
  } catch {
    return value;
  }
}

/**
 * Runs with equal values at every chosen path form a group, in the order their first run appears. Paths every run
 * shares (absent from the diff) cannot split anything and are left out of the label.
 */
export function groupRuns(runIds: string[], rows: DiffRow[], paths: string[]): RunGroup[] {
  const used = paths.map((p) => rows.find((r) => r.path === p)).filter((r): r is DiffRow => r !== undefined);
  const groups = new Map<string, RunGroup>();
  runIds.forEach((id, i) => {
    const parts = used.map((row) => `${row.path}=${shown(row.values[i] ?? null)}`);
    const key = JSON.stringify(used.map((row) => row.values[i] ?? null));
    const group = groups.get(key) ?? { label: parts.join(" · ") || "all runs", runIds: [] };
    group.runIds.push(id);
    groups.set(key, group);
  });
  return [...groups.values()];
}

/** The paths to group by so that runs differing only in their seed fall together ("pool the seeds"). */
export function allButSeed(rows: DiffRow[]): string[] {
  return rows.map((r) => r.path).filter((p) => !/(^|\.)seed$/i.test(p) && p !== "name" && !p.startsWith("tags"));
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** Sample standard deviation (n − 1); needs two values. */
export function sampleStd(values: number[]): number {
  const m = mean(values);
  return Math.sqrt(values.reduce((acc, v) => acc + (v - m) ** 2, 0) / (values.length - 1));
}

/** The band of one point's per-run values, or null for fewer than two. */
export function spread(values: number[], kind: BandKind): [number, number] | null {
  if (values.length < 2) return null;
  if (kind === "minmax") return [Math.min(...values), Math.max(...values)];
  const m = mean(values);
  const half = kind === "std" ? sampleStd(values) : sampleStd(values) / Math.sqrt(values.length);
  return [m - half, m + half];
}

/** The group's curve: per step (or bucket), the mean over the runs that have a value there and its band. */
export function aggregateRuns(series: Point[][], kind: BandKind, maxBuckets = 300): GroupPoint[] {
  const steps = [...new Set(series.flatMap((s) => s.map((p) => p.step)))].sort((a, b) => a - b);
  if (steps.length === 0) return [];
  const exact = steps.length <= maxBuckets;
  const first = steps[0];
  const width = exact ? 1 : Math.ceil((steps[steps.length - 1] - first + 1) / maxBuckets);
  const bucketOf = (step: number) => (exact ? step : Math.floor((step - first) / width));

  // bucket → per run: [sum of values, sum of steps, count]
  const buckets = new Map<number, Map<number, [number, number, number]>>();
  series.forEach((points, run) => {
    for (const p of points) {
      if (!Number.isFinite(p.value)) continue;
      const b = bucketOf(p.step);
      const perRun = buckets.get(b) ?? new Map<number, [number, number, number]>();
      const acc = perRun.get(run) ?? [0, 0, 0];
      perRun.set(run, [acc[0] + p.value, acc[1] + p.step, acc[2] + 1]);
      buckets.set(b, perRun);
    }
  });
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([b, perRun]) => {
      const runs = [...perRun.values()];
      const values = runs.map(([sum, , count]) => sum / count);
      const step = exact ? b : mean(runs.map(([, stepSum, count]) => stepSum / count));
      return { step, mean: mean(values), band: spread(values, kind), n: values.length };
    });
}

/**
 * The figure a paper reports: each run's last logged value, then their mean and band across the group's runs
 * ("0.62 ± 0.04 over 3 seeds"). Runs with no value are not counted.
 */
export function finalValues(series: Point[][], kind: BandKind): { mean: number; band: [number, number] | null; n: number } | null {
  const lasts = series.filter((s) => s.length > 0).map((s) => s.reduce((a, b) => (b.step >= a.step ? b : a)).value);
  if (lasts.length === 0) return null;
  return { mean: mean(lasts), band: spread(lasts, kind), n: lasts.length };
}
