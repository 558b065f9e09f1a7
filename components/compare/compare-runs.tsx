"use client";
/**
 * Compare runs: pick runs, overlay their curves for chosen metric keys (runs.metricSeries, downsampled per run),
 * optionally grouped by config settings into mean ± spread curves (lib/run-groups, W&B's "Group by"), and list the
 * config settings that differ between them. A run keeps one colour in every chart and legend of the page (by its
 * place in the URL; dashed past the twelfth); grouped, a group keeps its own, and evaluations stay per run.
 */
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { useQueries, useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { QueryState } from "@/components/trajectories/badges";
import { MAX_RUNS, chooseKeys, parseCompareQuery, toCompareQuery, type CompareQuery } from "./compare-query";
import { OverlayChart, SeriesDot, seriesStyle, type OverlaySeries } from "./overlay-chart";
import { GroupControls } from "./group-controls";
import { GroupSummary } from "./group-summary";
import { smoothSeries } from "@/lib/smoothing";
import { BAND_LABELS, aggregateRuns, groupRuns, stepGrid, type RunGroup } from "@/lib/run-groups";
import { SmoothingSlider } from "@/components/charts/smoothing-slider";
import { EvaluationOverlay } from "@/components/evaluations/evaluation-overlay";

type Points = { step: number; value: number }[];

export function CompareRuns() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const query = parseCompareQuery(useSearchParams());
  const { runs: runIds, keys: requestedKeys, smooth, band } = query;
  const go = (change: Partial<CompareQuery>) => router.replace(`${pathname}?${toCompareQuery({ ...query, ...change })}`, { scroll: false });

  const compare = useQuery({ ...trpc.trajectories.compareRuns.queryOptions({ runIds }), enabled: runIds.length > 0 });
  const available = compare.data?.metricKeys.map((k) => k.key) ?? [];
  const keys = chooseKeys(requestedKeys, available);
  const series = useQueries({
    queries: runIds.map((id) => ({
      ...trpc.runs.metricSeries.queryOptions({ id, keys: keys.length ? keys : ["reward/mean"], maxPoints: 300 }),
      enabled: keys.length > 0 && !!compare.data,
    })),
  });
  const label = (id: string) => compare.data?.runs.find((r) => r.id === id)?.name ?? id;
  const rawPointsOf = (id: string, key: string): Points => series[runIds.indexOf(id)]?.data?.[key] ?? [];
  const pointsOf = (id: string, key: string): Points => smoothPoints(rawPointsOf(id, key), smooth);
  const groups: RunGroup[] | null = compare.data && query.group.length ? groupRuns(runIds, compare.data.configDiff, query.group) : null;
  const groupIndexOf = (id: string) => groups?.findIndex((g) => g.runIds.includes(id)) ?? -1;
  /** The run's own style (evaluations are drawn per run, grouped or not); the header follows the curves. */
  const runStyle = (id: string) => seriesStyle(runIds.indexOf(id));
  const headerStyle = (id: string) => (groups ? seriesStyle(groupIndexOf(id)) : runStyle(id));
  const curves = (key: string): OverlaySeries[] => {
    if (!groups) return runIds.map((id) => ({ id, label: label(id), ...runStyle(id), points: pointsOf(id, key) }));
    // One grid for every group, so their points share x positions and a tooltip compares them.
    const grid = stepGrid(runIds.map((id) => pointsOf(id, key)));
    return groups.map((g, i) => ({
      id: `${i}:${g.label}`, // a string "1" and a number 1 show alike
      label: `${g.label} (${g.runIds.length === 1 ? "1 run" : `${g.runIds.length} runs`})`,
      ...seriesStyle(i),
      points: aggregateRuns(
        g.runIds.map((id) => pointsOf(id, key)),
        band,
        grid,
      ).map((p) => ({ step: p.step, value: p.mean, band: p.band, n: p.n })),
    }));
  };

  return (
    <section className="space-y-5">
      <h1 className="text-xl font-semibold">Compare runs</h1>
      <RunPicker selected={runIds} onChange={(runs) => go({ runs })} />
      {runIds.length === 0 && <p className="text-sm text-slate-500">Pick up to {MAX_RUNS} runs above (or open /compare?runs=a,b).</p>}
      {runIds.length > 0 && <QueryState loading={compare.isLoading} error={compare.error} what="the selected runs" />}
      {compare.data && (
        <>
          <div className="flex flex-wrap gap-3 text-sm">
            {compare.data.runs.map((r) => (
              <Link key={r.id} href={`/runs/${r.id}`} className="flex items-center gap-1 hover:underline">
                <SeriesDot {...headerStyle(r.id)} />
                {r.name}{" "}
                <span className="text-xs text-slate-500">
                  ({r.status}, {r.step}/{r.totalSteps})
                </span>
              </Link>
            ))}
          </div>
          <SmoothingSlider className="text-sm" value={smooth} onChange={(v) => go({ smooth: v })} />
          {runIds.length > 1 && (
            <GroupControls rows={compare.data.configDiff} group={query.group} band={band} onChange={(group, b) => go({ group, band: b })} />
          )}
          <details className="rounded border border-slate-200 bg-white p-2 text-sm" open={requestedKeys !== null}>
            <summary className="cursor-pointer text-slate-600">
              Metric keys ({keys.length} of {available.length} shown)
            </summary>
            <div className="mt-2 flex flex-wrap gap-x-4 gap-y-1">
              {compare.data.metricKeys.map((k) => (
                <label key={k.key} className="flex items-center gap-1 font-mono text-xs">
                  <input
                    type="checkbox"
                    checked={keys.includes(k.key)}
                    onChange={(e) => go({ keys: e.target.checked ? [...keys, k.key] : keys.filter((x) => x !== k.key) })}
                  />
                  {k.key}
                  {k.runIds.length < runIds.length && (
                    <span className="text-slate-400">
                      ({k.runIds.length}/{runIds.length} runs)
                    </span>
                  )}
                </label>
              ))}
            </div>
          </details>
          {series.some((s) => s.isError) && (
            <p className="text-sm text-red-700">Some curves could not be loaded: {series.find((s) => s.isError)?.error?.message}</p>
          )}
          <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
            {keys.map((key) => (
              <OverlayChart key={key} title={key} series={curves(key)} bandLabel={groups ? BAND_LABELS[band] : undefined} />
            ))}
          </div>
          {groups && <GroupSummary groups={groups} keys={keys} band={band} style={seriesStyle} runName={label} pointsOf={rawPointsOf} />}
          <EvaluationOverlay runIds={runIds} label={label} style={runStyle} />
          <ConfigDiff runs={compare.data.runs} rows={compare.data.configDiff} same={compare.data.sameConfigCount} />
        </>
      )}
    </section>
  );
}

/** Each run's curve smoothed on its own (the same exponential smoothing as the run page's). */
function smoothPoints(points: { step: number; value: number }[], weight: number): { step: number; value: number }[] {
  const smoothed = smoothSeries(
    points.map((p) => p.value),
    weight,
  );
  return points.map((p, i) => ({ step: p.step, value: smoothed[i] ?? p.value }));
}

function ConfigDiff({
  runs,
  rows,
  same,
}: {
  runs: { id: string; name: string }[];
  rows: { path: string; values: (string | null)[] }[];
  same: number;
}) {
  return (
    <section>
      <h2 className="mb-2 text-sm font-semibold text-slate-700">Config difference</h2>
      {runs.length < 2 ? (
        <p className="text-sm text-slate-500">Select at least two runs to see how their configs differ.</p>
      ) : rows.length === 0 ? (
        <p className="text-sm text-slate-500">The configs are identical ({same} settings).</p>
      ) : (
        <div className="relative overflow-x-auto rounded border border-slate-200 bg-white" data-testid="config-diff">
          <table className="w-full text-left text-xs">
            <thead className="bg-slate-50 text-slate-500">
              <tr>
                <th className="px-2 py-1">setting</th>
                {runs.map((r) => (
                  <th key={r.id} className="max-w-48 truncate px-2 py-1">
                    {r.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="font-mono">
              {rows.map((row) => (
                <tr key={row.path} className="border-t border-slate-100">
                  <td className="px-2 py-1">{row.path}</td>
                  {row.values.map((v, i) => (
                    <td key={i} className="break-all px-2 py-1">
                      {v ?? <span className="italic text-slate-400">absent</span>}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <p className="px-2 py-1 text-xs text-slate-500">{same} other settings are the same.</p>
        </div>
      )}
    </section>
  );
}

function RunPicker({ selected, onChange }: { selected: string[]; onChange: (runs: string[]) => void }) {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const runs = useQuery(trpc.runs.list.queryOptions({ search: search || undefined, limit: 30 }));
  return (
    <details className="rounded border border-slate-200 bg-white p-2 text-sm" open={selected.length === 0}>
      <summary className="cursor-pointer text-slate-600">Runs ({selected.length} selected)</summary>
      <input
        data-search
        aria-label="Search runs to compare"
        placeholder="Search by name"
        className="mt-2 w-full max-w-sm rounded border border-slate-300 px-2 py-1"
        value={search}
        onChange={(e) => setSearch(e.target.value)}
      />
      <QueryState loading={runs.isLoading} error={runs.error} empty={runs.data?.items.length === 0} what="runs" />
      <ul className="mt-2 max-h-64 space-y-1 overflow-y-auto">
        {runs.data?.items.map((r) => (
          <li key={r.id}>
            <label className="flex items-center gap-2">
              <input
                type="checkbox"
                checked={selected.includes(r.id)}
                disabled={!selected.includes(r.id) && selected.length >= MAX_RUNS}
                onChange={(e) => onChange(e.target.checked ? [...selected, r.id] : selected.filter((x) => x !== r.id))}
              />
              <span className="truncate">{r.name}</span>
              <span className="text-xs text-slate-500">
                {r.status} · {r.environment}
              </span>
            </label>
          </li>
        ))}
      </ul>
    </details>
  );
}
