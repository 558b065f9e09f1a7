/**
 * A wall-time x axis: ticks on round local times (5 min, 1 h, 1 day, …) and labels that carry the date whenever the
 * range spans more than a day (a 35-day run ticked "14:00" five times). Pure; the browser's time zone applies.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Candidate intervals, shortest first; no two more than 2.5× apart, so a short run still gets 2 ticks or more (a 9-minute run had 5-minute ticks: one or two). */
const INTERVALS = [
  1000,
  2000,
  5000,
  10_000,
  15_000,
  30_000,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
  14 * DAY,
  30 * DAY,
];

export interface TimeAxis {
  ticks: number[];
  /** A tick's label: a time, a date, or both, as the range needs. */
  format: (ms: number) => string;
}

/** Local midnight, then whole intervals from it (days: whole days from the first midnight). */
function firstTick(min: number, interval: number): number {
  const d = new Date(min);
  d.setHours(0, 0, 0, 0);
  const base = d.getTime();
  return base + Math.ceil((min - base) / interval) * interval;
}

export function timeAxisFor(min: number, max: number, count = 5): TimeAxis {
  const span = Math.max(1, max - min);
  const interval = INTERVALS.find((i) => span / i <= count) ?? INTERVALS[INTERVALS.length - 1];
  const ticks: number[] = [];
  for (let t = firstTick(min, interval); t <= max && ticks.length < 50; t += interval) ticks.push(t);
  const date = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric" });
  const time = new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    ...(interval < MINUTE ? { second: "2-digit" } : {}),
  });
  const format = (ms: number) => {
    if (span < DAY) return time.format(ms);
    if (interval >= DAY) return date.format(ms);
    return `${date.format(ms)} ${time.format(ms)}`;
  };
  return { ticks, format };
}

/** A tooltip's time: always the full date and time. */
export function formatTimestamp(ms: number): string {
  return new Intl.DateTimeFormat("en-US", {
    month: "short",
    day: "numeric",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hour12: false,
  }).format(ms);
}
