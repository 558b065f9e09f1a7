/**
 * The overlay chart's rows: one per step any series has, holding each series' value (`v0`, `v1`, …), band (`b0`, …)
 * and run count (`n0`, …) at that step. recharts finds what to show under the pointer from the chart's own rows, so
 * series with their own point lists (runs logged at different steps) must be merged onto one x grid to get a tooltip;
 * a series without a point at a row's step has no key there, and its line bridges the gap.
 */
import type { OverlayPoint } from "./overlay-chart";

export type OverlayRow = { step: number } & Record<string, number | [number, number] | null>;

export const valueKey = (i: number) => `v${i}`;
export const bandKey = (i: number) => `b${i}`;
export const countKey = (i: number) => `n${i}`;

export function overlayRows(series: { points: OverlayPoint[] }[]): OverlayRow[] {
  const rows = new Map<number, OverlayRow>();
  series.forEach((s, i) => {
    for (const p of s.points) {
      const row = rows.get(p.step) ?? { step: p.step };
      row[valueKey(i)] = p.value;
      if (p.band !== undefined) row[bandKey(i)] = p.band;
      if (p.n !== undefined) row[countKey(i)] = p.n;
      rows.set(p.step, row);
    }
  });
  return [...rows.values()].sort((a, b) => a.step - b.step);
}
