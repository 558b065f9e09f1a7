/**
 * Axes a reader can trust: ticks at round numbers with exactly enough decimals to tell them apart, a range that
 * never magnifies float noise into spikes, a sane frame for a constant series, and labels short enough to read
 * whole (25k, not 25255 or a clipped "0000000").
 *
 *   constant 0 (or float noise around it, like a mean advantage of −2.78e-17) → 0 … 1
 *   constant v        → v ± 10% of |v|
 *   near-constant     → at least 2% of the values' magnitude (1e-6 absolute near zero) around the data
 *   otherwise         → the data's min … max, widened to the nearest ticks
 * Time axes are in lib/chart-time-axis.ts.
 */
export interface YAxis {
  domain: [number, number];
  ticks: number[];
  /** Decimals that make every tick label distinct. */
  decimals: number;
}

/** Below this a value is float noise around zero (sums of float32 terms that cancel), shown as 0. */
export const NOISE_ZERO = 1e-12;

/** 1, 2 or 5 × 10^k: the round step that gives about `count` intervals over `span`. */
export function niceStep(span: number, count: number): number {
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const m = raw / power;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * power;
}

const decimalsOf = (step: number) => Math.max(0, -Math.floor(Math.log10(step) + 1e-9));

export function yAxisFor(values: (number | null | undefined)[], tickCount = 4): YAxis | null {
  const finite = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  if (finite.length === 0) return null;
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  const magnitude = Math.max(Math.abs(lo), Math.abs(hi));
  if (magnitude < NOISE_ZERO) [lo, hi] = [0, 1];
  else if (hi === lo) {
    const pad = magnitude * 0.1;
    [lo, hi] = [lo - pad, hi + pad];
  } else {
    const minSpan = Math.max(magnitude * 0.02, 1e-6);
    if (hi - lo < minSpan) {
      const mid = (hi + lo) / 2;
      [lo, hi] = [mid - minSpan / 2, mid + minSpan / 2];
    }
  }
  const step = niceStep(hi - lo, tickCount);
  const start = Math.floor(lo / step + 1e-9) * step;
  const end = Math.ceil(hi / step - 1e-9) * step;
  const decimals = decimalsOf(step);
  const ticks: number[] = [];
  for (let t = start; t <= end + step / 2; t += step) ticks.push(Number(t.toFixed(decimals)));
  return { domain: [ticks[0], ticks[ticks.length - 1]], ticks, decimals };
}

/**
 * Ticks at round steps inside [min, max] for an axis whose ends are the data's own (training steps): a 100k-step
 * run ticks at 0, 25k, 50k, 75k, 100k instead of 255, 25255, 50255, and the last tick is the last step.
 */
export function stepTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (max <= min) return [min];
  const step = Math.max(1, niceStep(max - min, count));
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step - 1e-9) * step; t <= max + 1e-9; t += step) ticks.push(Math.round(t) + 0); // + 0: no "-0" label
  // The last step is the one a reader looks for ("how far did it get?"): a 200-step run ticked 0 … 150 and stopped.
  // It ends the axis; a round tick too close to it to read apart gives way.
  const last = ticks[ticks.length - 1];
  if (last !== max) {
    if (last !== undefined && max - last < step * 0.4) ticks.pop();
    ticks.push(max);
  }
  return ticks;
}

const SI = [
  { at: 1e12, suffix: "T" },
  { at: 1e9, suffix: "G" },
  { at: 1e6, suffix: "M" },
  { at: 1e3, suffix: "k" },
];

/** A tick label: SI suffixes from 10,000 (25k, 1.5M), a short exponent for steps below 0.001 (2e-7), else fixed. */
export function formatTick(value: number, decimals: number): string {
  if (Math.abs(value) < NOISE_ZERO) return "0";
  const abs = Math.abs(value);
  if (abs >= 1e4) {
    const si = SI.find((s) => abs >= s.at)!;
    const d = Math.max(0, decimals - Math.log10(si.at));
    return `${trimZeros((value / si.at).toFixed(Math.max(d, abs / si.at < 10 ? 1 : 0)))}${si.suffix}`;
  }
  if (decimals > 3) return shortExponent(value);
  return value.toFixed(decimals);
}

/** A value in a caption or tooltip: three significant digits, SI from 10,000, float noise as 0. */
export function formatValue(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  const abs = Math.abs(value);
  if (abs < NOISE_ZERO) return "0";
  if (abs >= 1e4) {
    const si = SI.find((s) => abs >= s.at)!;
    return `${trimZeros((value / si.at).toPrecision(3))}${si.suffix}`;
  }
  if (abs < 1e-3) return shortExponent(value, 2);
  return String(Number(value.toPrecision(3)));
}

/** A step count with thousands separators, SI from 10,000 (axis ticks of step axes). */
export function formatStep(step: number): string {
  return Math.abs(step) >= 1e4 ? formatTick(step, 0) : step.toLocaleString("en-US");
}

function trimZeros(text: string): string {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

/** 2e-7, -1.5e-5: no "+", no trailing zeros. */
function shortExponent(value: number, digits = 1): string {
  const [mantissa, exponent] = value.toExponential(digits).split("e");
  return `${trimZeros(mantissa)}e${Number(exponent)}`;
}

/** Pixels a y axis needs for its widest label at 10 px type, so no label is clipped. */
export function axisWidthFor(labels: string[]): number {
  const longest = labels.reduce((n, l) => Math.max(n, l.length), 1);
  return Math.min(80, Math.max(28, Math.ceil(longest * 6.2) + 10));
}
