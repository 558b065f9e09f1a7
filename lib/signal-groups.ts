/**
 * Warnings grouped by kind for reading: one entry per kind with how many steps it fired on, those steps as ranges
 * (12–40, 97), and only its most recent instances in full. A 100k-step run listed 7,335 warnings one by one — a
 * list nobody reads, and 1.3 MB to send. Pure.
 */
import type { Signal, SignalKind } from "./reward-signals";

export interface SignalGroup {
  kind: SignalKind;
  title: string;
  /** Warnings of this kind in all (one per step it fired on; one for a whole-run signal). */
  count: number;
  /** The steps, merged into inclusive ranges, oldest first; at most `maxRanges` (the most recent ones). */
  stepRanges: [number, number][];
  /** Ranges left out of `stepRanges` (the oldest). */
  rangesOmitted: number;
  /** The most recent instances in full (detail and example trajectories), newest first. */
  latest: Signal[];
}

/** Sorted distinct steps as inclusive runs of consecutive steps. */
export function toStepRanges(steps: number[]): [number, number][] {
  const sorted = [...new Set(steps)].sort((a, b) => a - b);
  const ranges: [number, number][] = [];
  for (const s of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && s === last[1] + 1) last[1] = s;
    else ranges.push([s, s]);
  }
  return ranges;
}

export function formatStepRanges(ranges: [number, number][]): string {
  return ranges
    .map(([a, b]) => (a === b ? a.toLocaleString("en-US") : `${a.toLocaleString("en-US")}–${b.toLocaleString("en-US")}`))
    .join(", ");
}

/**
 * Groups in the order a reader should meet them: the kinds seen most recently first (what the run does now), then
 * by count. `signals` may be in any order.
 */
export function groupSignals(signals: Signal[], opts: { latest?: number; maxRanges?: number } = {}): SignalGroup[] {
  const latestN = opts.latest ?? 3;
  const maxRanges = opts.maxRanges ?? 12;
  const byKind = new Map<SignalKind, Signal[]>();
  for (const s of signals) {
    const list = byKind.get(s.kind);
    if (list) list.push(s);
    else byKind.set(s.kind, [s]);
  }
  const groups = [...byKind.values()].map((list): SignalGroup & { newest: number } => {
    const newestFirst = [...list].sort((a, b) => (b.step ?? Infinity) - (a.step ?? Infinity));
    const ranges = toStepRanges(list.flatMap((s) => (s.step === null ? [] : [s.step])));
    return {
      kind: list[0].kind,
      title: list[0].title,
      count: list.length,
      stepRanges: ranges.slice(-maxRanges),
      rangesOmitted: Math.max(0, ranges.length - maxRanges),
      latest: newestFirst.slice(0, latestN),
      newest: newestFirst[0].step ?? Infinity,
    };
  });
  groups.sort((a, b) => b.newest - a.newest || b.count - a.count);
  return groups.map(({ newest: _newest, ...g }) => {
    void _newest;
    return g;
  });
}
