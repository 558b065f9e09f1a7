/**
 * Curve smoothing as TensorBoard and W&B do it: an exponential moving average with debiasing, so the first points
 * are not dragged towards zero. Gaps (null) stay gaps and do not reset the average.
 */
export function smoothSeries(values: (number | null)[], weight: number): (number | null)[] {
  if (weight <= 0) return values;
  let last = 0;
  let count = 0;
  return values.map((v) => {
    if (v === null || !Number.isFinite(v)) return null;
    last = last * weight + (1 - weight) * v;
    count++;
    return last / (1 - weight ** count);
  });
}

/** Metric keys grouped by their first path segment ("reward/mean" → "reward"), in a stable, useful order. */
export function groupMetricKeys(keys: string[]): { group: string; keys: string[] }[] {
  const ORDER = ["reward", "eval", "adv", "loss", "kl", "entropy", "clip", "response", "env", "llm", "time"];
  const groups = new Map<string, string[]>();
  for (const key of keys) {
    const group = key.includes("/") ? key.slice(0, key.indexOf("/")) : key;
    groups.set(group, [...(groups.get(group) ?? []), key]);
  }
  const rank = (g: string) => (ORDER.indexOf(g) === -1 ? ORDER.length : ORDER.indexOf(g));
  return [...groups.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([group, ks]) => ({ group, keys: ks.sort((a, b) => keyRank(a) - keyRank(b) || a.localeCompare(b)) }));
}

/** Within a namespace the summary statistics lead (reward/mean before reward/invalid), then the rest by name. */
function keyRank(key: string): number {
  const last = key.slice(key.lastIndexOf("/") + 1);
  const LEAD = ["mean", "std", "max", "min"];
  return LEAD.includes(last) ? LEAD.indexOf(last) : LEAD.length;
}

/**
 * Insert a null between points whose step distance is well above the series' usual stride, so a chart shows a
 * missing stretch (a crashed worker, a metric not recorded for a while) as a gap instead of a straight line.
 */
export function insertGaps<T extends { step: number }>(points: T[], make: (step: number) => T): T[] {
  if (points.length < 3) return points;
  const strides = points
    .slice(1)
    .map((p, i) => p.step - points[i].step)
    .sort((a, b) => a - b);
  const usual = strides[Math.floor(strides.length / 2)];
  const out: T[] = [points[0]];
  for (let i = 1; i < points.length; i++) {
    if (points[i].step - points[i - 1].step > 2.5 * usual) out.push(make(points[i - 1].step + usual));
    out.push(points[i]);
  }
  return out;
}
