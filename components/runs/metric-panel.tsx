"use client";
/**
 * All recorded metric keys of a run as curves, grouped by namespace, with smoothing, a step / wall-time x-axis and a
 * log y-axis. Each chart has its own tooltip; "sync hover" shows the same step on all of them. Clicking a step opens
 * the trajectory browser at that step. A namespace can be folded away (its button in the group bar) and a chart pinned to lead the grid.
 * Smoothing, filter, x-axis, log scale, hover sync, folded namespaces and pins live in the URL (`smooth`, `filter`,
 * `x`, `log`, `sync`, `hide`, `pin`), so a view can be shared and survives a reload.
 */
import { useEffect, useRef, useState } from "react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { MetricChart, type ChartPoint, type XAxisMode } from "@/components/charts/metric-chart";
import { insertGaps, smoothSeries } from "@/lib/smoothing";
import { CHART_MAX_POINTS, chartKeysShown, chartViewFromParams } from "@/lib/chart-keys";
import { SmoothingSlider } from "@/components/charts/smoothing-slider";

interface SeriesPoint {
  step: number;
  value: number;
  min: number;
  max: number;
  wallTime: string;
}

function toChartPoints(points: SeriesPoint[] | undefined, smoothing: number, xMode: XAxisMode): ChartPoint[] {
  const withGaps = insertGaps<{ step: number; p: SeriesPoint | null }>(
    (points ?? []).map((p) => ({ step: p.step, p })),
    (step) => ({ step, p: null }),
  );
  const smoothed = smoothSeries(
    withGaps.map((g) => g.p?.value ?? null),
    smoothing,
  );
  let lastTime = 0;
  return withGaps.map((g, i) => {
    const time = g.p ? Date.parse(g.p.wallTime) : lastTime + 1;
    lastTime = time;
    return { x: xMode === "step" ? g.step : time, value: smoothed[i], raw: g.p?.value ?? null, band: g.p ? [g.p.min, g.p.max] : null };
  });
}

const ALWAYS_DRAWN = new Set(["reward/mean", "eval/reward_mean"]);

/** Every point exactly 0 (its mean and its range): a chart of a flat line at 0 says less than its name in a list. */
export function isAllZero(points: SeriesPoint[] | undefined): boolean {
  return !!points && points.length > 0 && points.every((p) => p.value === 0 && p.min === 0 && p.max === 0);
}

/** `progress` changes whenever the run records a step or changes status; the curves refetch then (and poll while live). */
export function MetricPanel({ runId, live, progress }: { runId: string; live: boolean; progress: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const pathname = usePathname();
  const initialSmoothing = Number(params.get("smooth") ?? "0.6");
  const [smoothing, setSmoothingState] = useState(Number.isFinite(initialSmoothing) ? Math.min(0.99, Math.max(0, initialSmoothing)) : 0.6);
  const [xMode, setXModeState] = useState<XAxisMode>(params.get("x") === "time" ? "time" : "step");
  const [filter, setFilterState] = useState(params.get("filter") ?? "");
  const [logScale, setLogScaleState] = useState(params.get("log") === "1");
  const [sync, setSyncState] = useState(params.get("sync") === "1");
  const initialView = chartViewFromParams((name) => params.get(name));
  const [hidden, setHiddenState] = useState<string[]>(initialView.hidden);
  const [pinned, setPinnedState] = useState<string[]>(initialView.pinned);
  // Every change writes the whole view from state, not a patch over `params`: router.replace lands asynchronously,
  // so quick successive changes patched over a stale URL would undo each other.
  type View = { smoothing: number; xMode: XAxisMode; filter: string; logScale: boolean; sync: boolean; hidden: string[]; pinned: string[] };
  const writeUrl = (v: View) => {
    const q = new URLSearchParams(params.toString());
    const set = (k: string, value: string | null) => (value === null ? q.delete(k) : q.set(k, value));
    set("smooth", v.smoothing === 0.6 ? null : v.smoothing.toFixed(2));
    set("x", v.xMode === "step" ? null : v.xMode);
    set("filter", v.filter || null);
    set("log", v.logScale ? "1" : null);
    set("sync", v.sync ? "1" : null);
    set("hide", v.hidden.length ? v.hidden.join(",") : null);
    set("pin", v.pinned.length ? v.pinned.join(",") : null);
    router.replace(`${pathname}${q.size ? `?${q}` : ""}`, { scroll: false });
  };
  const view: View = { smoothing, xMode, filter, logScale, sync, hidden, pinned };
  const setSmoothing = (v: number) => (setSmoothingState(v), writeUrl({ ...view, smoothing: v }));
  const setXMode = (v: XAxisMode) => (setXModeState(v), writeUrl({ ...view, xMode: v }));
  const setFilter = (v: string) => (setFilterState(v), writeUrl({ ...view, filter: v }));
  const setLogScale = (v: boolean) => (setLogScaleState(v), writeUrl({ ...view, logScale: v }));
  const setSync = (v: boolean) => (setSyncState(v), writeUrl({ ...view, sync: v }));
  const toggle = (xs: string[], x: string) => (xs.includes(x) ? xs.filter((y) => y !== x) : [...xs, x]);
  const toggleGroup = (g: string) => {
    const next = toggle(hidden, g);
    setHiddenState(next);
    writeUrl({ ...view, hidden: next });
  };
  const togglePin = (key: string) => {
    const next = toggle(pinned, key);
    setPinnedState(next);
    writeUrl({ ...view, pinned: next });
  };
  const keys = useQuery({ ...trpc.runs.metricKeys.queryOptions({ id: runId }), refetchInterval: live ? 5000 : false });
  const { groups, shown } = chartKeysShown(keys.data ?? [], { filter, hidden, pinned });
  const series = useQuery({
    ...trpc.runs.metricSeries.queryOptions({ id: runId, keys: shown.length ? shown : ["reward/mean"], maxPoints: CHART_MAX_POINTS }),
    enabled: shown.length > 0,
    refetchInterval: live ? 3000 : false,
  });

  // All-zero curves fold into one line (a pinned one is drawn anyway), unless asked for.
  const [showZero, setShowZero] = useState(false);
  // The reward itself stays drawn even at 0: "nothing was learned yet" is what its chart is opened for.
  const zeroKeys = showZero ? [] : shown.filter((k) => !pinned.includes(k) && !ALWAYS_DRAWN.has(k) && isAllZero(series.data?.[k]));
  const drawn = shown.filter((k) => !zeroKeys.includes(k));

  const { refetch: refetchKeys } = keys;
  const { refetch: refetchSeries } = series;
  // A run that finishes between two polls would otherwise keep the last (possibly empty) picture. Only on a change:
  // on mount the data is fresh (prefetched with the page, or being fetched), and a refetch would cancel and repeat it.
  const seenProgress = useRef(progress);
  useEffect(() => {
    if (seenProgress.current === progress) return;
    seenProgress.current = progress;
    void refetchKeys();
    void refetchSeries();
  }, [progress, refetchKeys, refetchSeries]);

  return (
    <section>
      <div className="mb-3 flex flex-wrap items-center gap-4 text-sm">
        <h2 className="mr-auto font-semibold text-slate-700">Metrics</h2>
        <input
          aria-label="Filter metrics"
          data-search
          placeholder="filter keys, e.g. reward/"
          className="rounded border border-slate-300 px-2 py-1 text-sm"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
        <SmoothingSlider value={smoothing} onChange={setSmoothing} />
        <label className="flex items-center gap-1">
          <input type="checkbox" aria-label="Log scale" checked={logScale} onChange={(e) => setLogScale(e.target.checked)} />
          log y
        </label>
        <label className="flex items-center gap-1" title="Hovering one chart shows the same step's values on every chart">
          <input type="checkbox" aria-label="Sync hover" checked={sync} onChange={(e) => setSync(e.target.checked)} />
          sync hover
        </label>
        <select
          aria-label="X axis"
          className="rounded border border-slate-300 px-2 py-1"
          value={xMode}
          onChange={(e) => setXMode(e.target.value as XAxisMode)}
        >
          <option value="step">x: step</option>
          <option value="time">x: wall time</option>
        </select>
      </div>
      {keys.isLoading && <p className="text-sm text-slate-500">Loading metrics…</p>}
      {keys.isError && <p className="text-sm text-red-700">Could not load metrics: {keys.error.message}</p>}
      {keys.data?.length === 0 && <p className="text-sm text-slate-500">No metrics recorded yet.</p>}
      {series.isError && <p className="text-sm text-red-700">Could not load curves: {series.error.message}</p>}
      {groups.length > 1 && (
        <div className="mb-3 flex flex-wrap gap-1 text-xs" role="group" aria-label="Metric groups">
          {groups.map((g) => (
            <button
              key={g.group}
              type="button"
              aria-pressed={!hidden.includes(g.group)}
              onClick={() => toggleGroup(g.group)}
              className={`rounded border px-2 py-0.5 font-mono ${hidden.includes(g.group) ? "border-slate-200 text-slate-400 line-through" : "border-slate-300 bg-white text-slate-700"}`}
            >
              {g.group} · {g.keys.length}
            </button>
          ))}
        </div>
      )}
      {/* One grid in namespace order (reward, eval, adv, loss, …): the titles carry the namespace, and a header per
          namespace would leave most rows one chart wide; the group bar above folds namespaces instead. */}
      {zeroKeys.length > 0 && (
        <p className="mb-3 text-xs text-slate-600" data-testid="all-zero-metrics">
          0 on every step ({zeroKeys.length}, not drawn): <span className="font-mono">{zeroKeys.join(", ")}</span>
          {" · "}
          <button type="button" className="underline" onClick={() => setShowZero(true)}>
            draw them
          </button>
        </p>
      )}
      <div className="grid grid-cols-1 gap-3 md:grid-cols-2 xl:grid-cols-3">
        {drawn.map((key) => (
          <MetricChart
            key={key}
            title={key}
            xMode={xMode}
            logScale={logScale}
            syncId={sync ? `run-${runId}` : undefined}
            onPickStep={(step) => router.push(`/runs/${runId}/trajectories?stepMin=${step}&stepMax=${step}`)}
            points={toChartPoints(series.data?.[key], smoothing, xMode)}
            pinned={pinned.includes(key)}
            onTogglePin={() => togglePin(key)}
          />
        ))}
      </div>
    </section>
  );
}
