"use client";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { estimateRemainingMs, formatDuration, formatNumber } from "@/lib/format";
import { Sparkline } from "@/components/charts/sparkline";
import { ProgressBar } from "./progress-bar";
import { StatusBadge } from "./status-badge";
import { RUN_STATUSES } from "@/lib/run-status";
import { sortRows, type SortDirection } from "@/lib/sort-rows";
import { SortHeader } from "./sort-header";
import { ConfigColumnPicker } from "./config-column-picker";
import { formatConfigValue, parseColumns } from "@/lib/config-columns";
import { DemoEvaluationButton } from "@/components/evaluations/demo-evaluation-button";
import { notesPreview } from "@/lib/run-notes";

const STATUSES = RUN_STATUSES;
type Status = (typeof STATUSES)[number];

/** Columns the table sorts by (the page of runs shown; the server lists newest first). */
const SORTABLE = ["name", "status", "environment", "progress", "reward", "best", "kl", "cost", "duration"] as const;
/** A fixed column, or a chosen config column ("config:grpo.learningRate"). */
type SortKey = (typeof SORTABLE)[number] | `config:${string}`;
const isSortKey = (k: string): k is SortKey => (SORTABLE as readonly string[]).includes(k) || k.startsWith("config:");

/** The runs list: filters live in the URL (shareable, kept on reload); ticked runs open side by side in Compare. */
/** Columns a phone leaves out (the table still scrolls sideways for the rest): from sm, md and lg widths up. */
const SM = "hidden sm:table-cell";
const MD = "hidden md:table-cell";
const LG = "hidden lg:table-cell";

export function RunsList() {
  const trpc = useTRPC();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const initialStatus = params.get("status") ?? "";
  const [status, setStatusState] = useState<Status | "">(
    (STATUSES as readonly string[]).includes(initialStatus) ? (initialStatus as Status) : "",
  );
  const [environment, setEnvironmentState] = useState(params.get("environment") ?? "");
  const [search, setSearchState] = useState(params.get("search") ?? "");
  const [selected, setSelected] = useState<string[]>([]);
  const initialSort = params.get("sort") ?? "";
  const [sort, setSortState] = useState<SortKey | "">(isSortKey(initialSort) ? initialSort : "");
  const [columns, setColumnsState] = useState<string[]>(parseColumns(params.get("cols")));
  const [dir, setDirState] = useState<SortDirection>(params.get("dir") === "asc" ? "asc" : "desc");
  const syncUrl = (next: { status?: string; environment?: string; search?: string; sort?: string; dir?: string; cols?: string }) => {
    // Every filter is written from this render's state, not only the changed one: `params` lags behind a
    // router.replace still in flight, so two quick changes (clear the status, then sort) would otherwise put the first
    // one's old value back in the URL.
    const current = { status, environment, search, sort, dir: sort ? dir : "", cols: columns.join(",") };
    const q = new URLSearchParams(params.toString());
    for (const [k, v] of Object.entries({ ...current, ...next })) {
      if (v) q.set(k, v);
      else q.delete(k);
    }
    router.replace(`${pathname}${q.size ? `?${q}` : ""}`, { scroll: false });
  };
  const setStatus = (v: Status | "") => (setStatusState(v), syncUrl({ status: v }));
  const setEnvironment = (v: string) => (setEnvironmentState(v), syncUrl({ environment: v }));
  const setSearch = (v: string) => (setSearchState(v), syncUrl({ search: v }));
  const setColumns = (next: string[]) => {
    setColumnsState(next);
    // A removed column no longer sorts the table.
    const keepSort = !sort.startsWith("config:") || next.includes(sort.slice("config:".length));
    if (!keepSort) setSortState("");
    syncUrl({ cols: next.join(","), ...(!keepSort && { sort: "", dir: "" }) });
  };
  // A click on the sorted column flips its direction; another column sorts best / most first.
  const sortBy = (key: SortKey) => {
    const nextDir: SortDirection =
      sort === key
        ? dir === "desc"
          ? "asc"
          : "desc"
        : key === "name" || key === "environment" || key === "status" || key.startsWith("config:")
          ? "asc"
          : "desc";
    setSortState(key);
    setDirState(nextDir);
    syncUrl({ sort: key, dir: nextDir });
  };
  const toggle = (id: string) => setSelected((prev) => (prev.includes(id) ? prev.filter((x) => x !== id) : [...prev, id]));
  const facets = useQuery(trpc.runs.facets.queryOptions());
  const runs = useQuery({
    ...trpc.runs.list.queryOptions({
      status: status ? [status] : undefined,
      environment: environment || undefined,
      search: search || undefined,
      limit: 50,
    }),
    // Live updates: poll while anything is queued or running.
    refetchInterval: (q) => (q.state.data?.items.some((r) => r.status === "running" || r.status === "queued") ? 2000 : 10_000),
  });

  const ids = runs.data?.items.map((r) => r.id) ?? [];
  const sparklines = useQuery({
    ...trpc.runs.sparklines.queryOptions({ ids }),
    enabled: ids.length > 0,
    refetchInterval: runs.data?.items.some((r) => r.status === "running") ? 5000 : false,
  });
  const summaries = useQuery({
    ...trpc.runs.summaries.queryOptions({ ids }),
    enabled: ids.length > 0,
    refetchInterval: runs.data?.items.some((r) => r.status === "running") ? 5000 : false,
  });
  const configs = useQuery({ ...trpc.runs.configLeaves.queryOptions({ ids }), enabled: ids.length > 0 });
  const slurmJobs = useQuery({
    ...trpc.runs.slurmJobLines.queryOptions({ ids }),
    enabled: ids.length > 0,
    refetchInterval: runs.data?.items.some((r) => r.status === "queued" || r.status === "running") ? 5000 : false,
  });
  type Row = NonNullable<typeof runs.data>["items"][number];
  const durationMs = (r: Row) => (r.startedAt ? (r.finishedAt ?? new Date()).getTime() - r.startedAt.getTime() : null);
  const sortValue: Record<(typeof SORTABLE)[number], (r: Row) => number | string | null> = {
    name: (r) => r.name,
    status: (r) => r.status,
    environment: (r) => r.environment,
    progress: (r) => (r.totalSteps ? r.step / r.totalSteps : null),
    reward: (r) => r.latestReward,
    best: (r) => summaries.data?.[r.id]?.bestReward ?? null,
    kl: (r) => summaries.data?.[r.id]?.kl ?? null,
    cost: (r) => summaries.data?.[r.id]?.costUsd ?? null,
    duration: durationMs,
  };
  const valueOf = (key: SortKey): ((r: Row) => number | string | null) => {
    if (!key.startsWith("config:")) return sortValue[key as (typeof SORTABLE)[number]];
    const path = key.slice("config:".length);
    return (r) => {
      const v = configs.data?.[r.id]?.[path];
      return typeof v === "number" || typeof v === "string" ? v : typeof v === "boolean" ? String(v) : null;
    };
  };
  const rows = runs.data ? (sort ? sortRows(runs.data.items, valueOf(sort), dir) : runs.data.items) : [];
  const header = (key: SortKey, label: string, title?: string, className?: string) => (
    <SortHeader label={label} title={title} active={sort === key} dir={dir} onSort={() => sortBy(key)} className={className} />
  );

  return (
    <section>
      <div className="mb-4 flex flex-wrap items-end gap-3">
        <h1 className="mr-auto text-xl font-semibold">Runs</h1>
        {selected.length >= 2 && (
          <Link
            href={`/compare?runs=${selected.join(",")}`}
            className="rounded border border-blue-700 px-3 py-1.5 text-sm font-medium text-blue-700 hover:bg-blue-50"
          >
            Compare {selected.length} runs
          </Link>
        )}
        <DemoEvaluationButton />
        <Link href="/runs/new" className="rounded bg-blue-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-800">
          New run
        </Link>
        <input
          data-search
          aria-label="Search runs"
          placeholder="Search name, tag, notes"
          title="Finds runs by name, by a whole tag, or by words in their notes"
          className="rounded border border-slate-300 px-2 py-1 text-sm"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <select
          aria-label="Status"
          className="rounded border border-slate-300 px-2 py-1 text-sm"
          value={status}
          onChange={(e) => setStatus(e.target.value as Status | "")}
        >
          <option value="">All statuses</option>
          {STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <select
          aria-label="Environment"
          className="rounded border border-slate-300 px-2 py-1 text-sm"
          value={environment}
          onChange={(e) => setEnvironment(e.target.value)}
        >
          <option value="">All environments</option>
          {facets.data?.environments.map((e) => (
            <option key={e}>{e}</option>
          ))}
        </select>
        <ConfigColumnPicker configs={Object.values(configs.data ?? {})} shown={columns} onAdd={(path) => setColumns([...columns, path])} />
      </div>
      {runs.isLoading && <p className="text-sm text-slate-500">Loading runs…</p>}
      {runs.isError && <p className="text-sm text-red-700">Could not load runs: {runs.error.message}</p>}
      {runs.data && runs.data.items.length === 0 && (
        <p className="text-sm text-slate-500">No runs match. Launch one with New run, the API or the CLI.</p>
      )}
      {runs.data && runs.data.items.length > 0 && (
        <div className="relative overflow-x-auto rounded border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="bg-slate-50 text-xs uppercase text-slate-500">
              <tr>
                <th className="px-3 py-2">
                  <span className="sr-only">Select</span>
                </th>
                {header("name", "Name")}
                {header("status", "Status")}
                {header("environment", "Environment", undefined, SM)}
                <th className={`px-3 py-2 ${MD}`}>Policy</th>
                {header("progress", "Progress")}
                {header("reward", "Reward", "Mean reward of the latest step")}
                {header("best", "Best", "Highest mean reward of any step", MD)}
                {header("kl", "KL", "KL to the reference at the latest step", MD)}
                {header("cost", "LLM cost", "Simulator and judge calls, USD", MD)}
                {header("duration", "Duration", undefined, SM)}
                {columns.map((path) => (
                  <ConfigHeader
                    key={path}
                    path={path}
                    active={sort === `config:${path}`}
                    dir={dir}
                    onSort={() => sortBy(`config:${path}`)}
                    onRemove={() => setColumns(columns.filter((c) => c !== path))}
                  />
                ))}
                <th className={`whitespace-nowrap px-3 py-2 ${LG}`}>Launched by</th>
              </tr>
            </thead>
            {/* The skip link lands here (components/layout/skip-link.tsx): the runs themselves, past the filters and
                the sort buttons (15 Tab stops), so the first run is two Tabs away. */}
            <tbody data-skip-target tabIndex={-1} className="focus:outline-none">
              {rows.map((run) => {
                const summary = summaries.data?.[run.id];
                const end = run.finishedAt ?? new Date();
                const eta = run.status === "running" ? estimateRemainingMs(run.startedAt, run.step, run.totalSteps) : null;
                return (
                  <tr
                    key={run.id}
                    className="border-t border-slate-100 hover:bg-slate-50"
                    data-testid="run-row"
                    data-best={summary?.bestReward ?? ""}
                  >
                    <td className="px-3 py-2">
                      <input
                        type="checkbox"
                        aria-label={`Select ${run.name} to compare`}
                        checked={selected.includes(run.id)}
                        onChange={() => toggle(run.id)}
                      />
                    </td>
                    <td className="min-w-32 px-3 py-2 sm:min-w-48">
                      <Link href={`/runs/${run.id}`} className="font-medium text-blue-700 hover:underline">
                        {run.name}
                      </Link>
                      <div className="text-xs text-slate-500">{run.tags.join(", ")}</div>
                      <NotesPreview notes={run.notes} />
                    </td>
                    <td className="px-3 py-2">
                      <StatusBadge status={run.status} />
                      {slurmJobs.data?.[run.id] && (
                        <div className="text-xs text-slate-500" data-testid="run-slurm-job">
                          {slurmJobs.data[run.id]}
                        </div>
                      )}
                    </td>
                    <td className={`px-3 py-2 ${SM}`}>{run.environment}</td>
                    <td className={`px-3 py-2 ${MD}`}>{run.policyModel}</td>
                    <td className="px-3 py-2">
                      <ProgressBar done={run.step} total={run.totalSteps} />
                      {eta !== null && <div className="text-xs text-slate-500">ETA {formatDuration(eta)}</div>}
                    </td>
                    <td className="px-3 py-2 tabular-nums">
                      <div className="flex items-center gap-2">
                        <Sparkline values={sparklines.data?.[run.id] ?? []} />
                        {formatNumber(run.latestReward)}
                      </div>
                    </td>
                    <td className={`px-3 py-2 tabular-nums ${MD}`}>{formatNumber(summary?.bestReward ?? null)}</td>
                    <td className={`px-3 py-2 tabular-nums ${MD}`}>{formatNumber(summary?.kl ?? null)}</td>
                    <td className={`px-3 py-2 tabular-nums ${MD}`}>
                      {summary?.costUsd ? `$${summary.costUsd.toFixed(summary.costUsd < 1 ? 4 : 2)}` : "—"}
                    </td>
                    <td className={`whitespace-nowrap px-3 py-2 tabular-nums ${SM}`}>
                      {run.startedAt ? formatDuration(end.getTime() - run.startedAt.getTime()) : "—"}
                    </td>
                    {columns.map((path) => (
                      <td key={path} className="px-3 py-2 font-mono text-xs tabular-nums" data-testid={`config-cell-${path}`}>
                        {formatConfigValue(configs.data?.[run.id]?.[path])}
                      </td>
                    ))}
                    <td className={`px-3 py-2 ${LG}`}>
                      {run.launchedBy}
                      {run.launchedByName ? ` · ${run.launchedByName}` : ""}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The first line of a run's notes, cut with "…" when there is more; the whole note on hover (title). */
function NotesPreview({ notes }: { notes: string }) {
  if (!notes) return null;
  const { text, cut } = notesPreview(notes);
  return (
    <div className="max-w-xs truncate text-xs text-slate-600" title={notes} data-testid="run-notes-preview">
      {text}
      {cut && <span aria-hidden="true">…</span>}
      {cut && <span className="sr-only"> (notes continue; hover or open the run to read them all)</span>}
    </div>
  );
}

/** A config column's header: sorts like the others, and × takes the column away. */
function ConfigHeader(props: { path: string; active: boolean; dir: SortDirection; onSort: () => void; onRemove: () => void }) {
  const { path, active, dir, onSort, onRemove } = props;
  return (
    <th
      className="px-3 py-2 normal-case"
      aria-sort={active ? (dir === "asc" ? "ascending" : "descending") : "none"}
      title={`Config: ${path}`}
    >
      <span className="flex items-center gap-1 whitespace-nowrap">
        <button type="button" className="font-mono hover:text-slate-800" onClick={onSort}>
          <span className="sr-only">Sort by </span>
          {path}
          {active ? (dir === "asc" ? " ▲" : " ▼") : ""}
        </button>
        <button type="button" aria-label={`Remove column ${path}`} className="text-slate-400 hover:text-red-700" onClick={onRemove}>
          ×
        </button>
      </span>
    </th>
  );
}
