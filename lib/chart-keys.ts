/**
 * Which metric keys the run page draws, in order: pinned charts first (in pin order), then the unfolded namespaces
 * in their usual order, at most 50. One function for the page (metric-panel.tsx) and the server that prefetches its
 * data (server/api/prefetch.ts): the two must ask for exactly the same series, or the prefetch is wasted.
 */
import { groupMetricKeys } from "./smoothing";

export const CHART_MAX_POINTS = 400;
const MAX_CHARTS = 50;

export interface ChartView {
  filter: string;
  hidden: string[];
  pinned: string[];
}

/** The view's filter, folded namespaces and pins as the URL carries them (`filter`, `hide`, `pin`). */
export function chartViewFromParams(get: (name: string) => string | null): ChartView {
  const list = (name: string) => (get(name) ?? "").split(",").filter(Boolean);
  return { filter: get("filter") ?? "", hidden: list("hide"), pinned: list("pin") };
}

export function chartKeysShown(keys: string[], view: ChartView) {
  const groups = groupMetricKeys(keys.filter((k) => k.includes(view.filter)));
  const inOrder = groups.filter((g) => !view.hidden.includes(g.group)).flatMap((g) => g.keys);
  const pinnedShown = view.pinned.filter((k) => groups.some((g) => g.keys.includes(k)));
  return { groups, shown: [...pinnedShown, ...inOrder.filter((k) => !view.pinned.includes(k))].slice(0, MAX_CHARTS) };
}
