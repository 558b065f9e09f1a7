/**
 * A y axis a reader can trust: ticks at round numbers with exactly enough decimals to tell them apart, a range that
 * never magnifies float noise into spikes, and a sane frame for a constant series.
 *
 *   constant 0        → 0 … 1
 *   constant v        → v ± 10% of |v|
 *   near-constant     → at least 2% of the values' magnitude (1e-6 absolute near zero) around the data
 *   otherwise         → the data's min … max, widened to the nearest ticks
 */
export interface YAxis {
  domain: [number, number];
  ticks: number[];
  /** Decimals that make every tick label distinct. */
  decimals: number;
}

/** 1, 2 or 5 × 10^k: the round step that gives about `count` intervals over `span`. */
function niceStep(span: number, count: number): number {
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const m = raw / power;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * power;
}

export function yAxisFor(values: (number | null | undefined)[], tickCount = 4): YAxis | null {
  const finite = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  if (finite.length === 0) return null;
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  const magnitude = Math.max(Math.abs(lo), Math.abs(hi));
  if (hi === lo) {
    const pad = magnitude === 0 ? 0.5 : magnitude * 0.1;
    [lo, hi] = magnitude === 0 ? [0, 1] : [lo - pad, hi + pad];
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
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const ticks: number[] = [];
  for (let t = start; t <= end + step / 2; t += step) ticks.push(Number(t.toFixed(decimals)));
  return { domain: [ticks[0], ticks[ticks.length - 1]], ticks, decimals };
}

export function formatTick(value: number, decimals: number): string {
  if (Math.abs(value) >= 1e5 || (value !== 0 && Math.abs(value) < 1e-4)) return value.toExponential(1);
  return value.toFixed(decimals);
}
