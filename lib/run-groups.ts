/**
 * Runs grouped by config settings, read as W&B reads a group: runs that share the chosen settings (typically all
 * but the seed) become one curve, the mean across them, with a band for their spread. This is how RL results are
 * judged: one seed's curve says little, the spread across seeds says whether a change is real.
 *
 * Alignment (stepGrid): where every run logged the same steps, a group point is one step; otherwise the step range
 * is cut into equal buckets (no narrower than the coarsest run's spacing, so runs on different grids meet), each run
 * contributes the mean of its points in a bucket, and the point sits at the bucket's centre, the same for every
 * group. A run that stopped early simply stops contributing: each point says how many runs (`n`) it averages.
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
    const group = groups.get(key) ?? { label: parts.join(" · ") || "all runs", runIds: [] }; // "*" uses no path: one group
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

/**
 * Where the group points sit, decided once over every run drawn on a chart (all groups), so that groups share their
 * x positions and a tooltip compares them: the exact steps when every run logged the same steps (at most
 * `maxBuckets`), otherwise equal buckets at least as wide as the coarsest run's own spacing (runs logged every other
 * step, or thinned by the server to different grids, would else alternate between one run and two), each at its
 * bucket's centre.
 */
export interface StepGrid {
  exact: boolean;
  first: number;
  width: number;
}

function medianGap(steps: number[]): number {
  if (steps.length < 2) return 1;
  const gaps = steps
    .slice(1)
    .map((s, i) => s - steps[i])
    .sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)];
}

export function stepGrid(series: Point[][], maxBuckets = 300): StepGrid | null {
  const perRun = series.filter((s) => s.length > 0).map((s) => [...new Set(s.map((p) => p.step))].sort((a, b) => a - b));
  if (perRun.length === 0) return null;
  const first = Math.min(...perRun.map((s) => s[0]));
  const last = Math.max(...perRun.map((s) => s[s.length - 1]));
  const same = perRun.every((s) => s.length === perRun[0].length && s.every((step, i) => step === perRun[0][i]));
  if (same && perRun[0].length <= maxBuckets) return { exact: true, first, width: 1 };
  const width = Math.max(1, Math.ceil((last - first + 1) / maxBuckets), ...perRun.map(medianGap));
  return { exact: width === 1, first, width };
}

/** The group's curve: per step (or bucket of `grid`), the mean over the runs that have a value there and its band. */
export function aggregateRuns(series: Point[][], kind: BandKind, grid: StepGrid | null = stepGrid(series)): GroupPoint[] {
  if (!grid) return [];
  const { exact, first, width } = grid;
  const bucketOf = (step: number) => (exact ? step : Math.floor((step - first) / width));
  const xOf = (b: number) => (exact ? b : first + b * width + (width - 1) / 2);

  // bucket → per run: [sum of values, count]
  const buckets = new Map<number, Map<number, [number, number]>>();
  series.forEach((points, run) => {
    for (const p of points) {
      if (!Number.isFinite(p.value)) continue;
      const b = bucketOf(p.step);
      const perRun = buckets.get(b) ?? new Map<number, [number, number]>();
      const acc = perRun.get(run) ?? [0, 0];
      perRun.set(run, [acc[0] + p.value, acc[1] + 1]);
      buckets.set(b, perRun);
    }
  });
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([b, perRun]) => {
      const values = [...perRun.values()].map(([sum, count]) => sum / count);
      return { step: xOf(b), mean: mean(values), band: spread(values, kind), n: values.length };
    });
}

export interface FinalFigure {
  mean: number;
  band: [number, number] | null;
  n: number;
  /** The steps the runs' last values were logged at (lowest, highest): apart when a run stopped early. */
  steps: [number, number];
}

/**
 * The figure a paper reports: each run's last finite value (give raw, unsmoothed points: a smoothed last value lags),
 * then their mean and band across the group's runs ("0.62 ± 0.04 over 3 seeds"). Runs with no value are not counted.
 */
export function finalValues(series: Point[][], kind: BandKind): FinalFigure | null {
  const lasts = series
    .map((s) => s.filter((p) => Number.isFinite(p.value)))
    .filter((s) => s.length > 0)
    .map((s) => s.reduce((a, b) => (b.step >= a.step ? b : a)));
  if (lasts.length === 0) return null;
  const values = lasts.map((p) => p.value);
  const steps = lasts.map((p) => p.step);
  return { mean: mean(values), band: spread(values, kind), n: values.length, steps: [Math.min(...steps), Math.max(...steps)] };
}

/** `group=*`: every run in one group (N seeds of one config, where nothing but the seed differs). */
export const ALL_IN_ONE = "*";
