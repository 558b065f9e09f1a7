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

const STATUSES = RUN_STATUSES;
type Status = (typeof STATUSES)[number];

/** The runs list: filters live in the URL (shareable, kept on reload); ticked runs open side by side in Compare. */
export function RunsList() {
  const trpc = useTRPC();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const initialStatus = params.get("status") ?? "";
  const [status, setStatusState] = useState<Status | "">((STATUSES as readonly string[]).includes(initialStatus) ? (initialStatus as Status) : "");
  const [environment, setEnvironmentState] = useState(params.get("environment") ?? "");
  const [search, setSearchState] = useState(params.get("search") ?? "");
  const [selected, setSelected] = useState<string[]>([]);
  const syncUrl = (next: { status?: string; environment?: string; search?: string }) => {
    const q = new URLSearchParams(params.toString());
    for (const [k, v] of Object.entries(next)) {
      if (v) q.set(k, v);
      else q.delete(k);
    }
    router.replace(`${pathname}${q.size ? `?${q}` : ""}`, { scroll: false });
  };
  const setStatus = (v: Status | "") => (setStatusState(v), syncUrl({ status: v }));
  const setEnvironment = (v: string) => (setEnvironmentState(v), syncUrl({ environment: v }));
  const setSearch = (v: string) => (setSearchState(v), syncUrl({ search: v }));
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

  return (
    <section>
      <div className="mb-4 flex flex-wrap items-end gap-3">
        <h1 className="mr-auto text-xl font-semibold">Runs</h1>
        {selected.length >= 2 && (
          <Link href={`/compare?runs=${selected.join(",")}`} className="rounded border border-blue-700 px-3 py-1.5 text-sm font-medium text-blue-700 hover:bg-blue-50">
            Compare {selected.length} runs
          </Link>
        )}
        <Link href="/runs/new" className="rounded bg-blue-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-800">
          New run
        </Link>
        <input
          data-search
          aria-label="Search runs"
          placeholder="Search by name"
          className="rounded border border-slate-300 px-2 py-1 text-sm"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <select aria-label="Status" className="rounded border border-slate-300 px-2 py-1 text-sm" value={status} onChange={(e) => setStatus(e.target.value as Status | "")}>
          <option value="">All statuses</option>
          {STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <select aria-label="Environment" className="rounded border border-slate-300 px-2 py-1 text-sm" value={environment} onChange={(e) => setEnvironment(e.target.value)}>
          <option value="">All environments</option>
          {facets.data?.environments.map((e) => (
            <option key={e}>{e}</option>
          ))}
        </select>
      </div>
      {runs.isLoading && <p className="text-sm text-slate-500">Loading runs…</p>}
      {runs.isError && <p className="text-sm text-red-700">Could not load runs: {runs.error.message}</p>}
      {runs.data && runs.data.items.length === 0 && <p className="text-sm text-slate-500">No runs match. Launch one with New run, the API or the CLI.</p>}
      {runs.data && runs.data.items.length > 0 && (
        <div className="overflow-x-auto rounded border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="bg-slate-50 text-xs uppercase text-slate-500">
              <tr>
                <th className="px-3 py-2">
                  <span className="sr-only">Select</span>
                </th>
                <th className="px-3 py-2">Name</th>
                <th className="px-3 py-2">Status</th>
                <th className="px-3 py-2">Environment</th>
                <th className="px-3 py-2">Policy</th>
                <th className="px-3 py-2">Progress</th>
                <th className="px-3 py-2">Reward</th>
                <th className="px-3 py-2">Duration</th>
                <th className="px-3 py-2">Launched by</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.items.map((run) => {
                const end = run.finishedAt ?? new Date();
                const eta = run.status === "running" ? estimateRemainingMs(run.startedAt, run.step, run.totalSteps) : null;
                return (
                  <tr key={run.id} className="border-t border-slate-100 hover:bg-slate-50" data-testid="run-row">
                    <td className="px-3 py-2">
                      <input type="checkbox" aria-label={`Select ${run.name} to compare`} checked={selected.includes(run.id)} onChange={() => toggle(run.id)} />
                    </td>
                    <td className="px-3 py-2">
                      <Link href={`/runs/${run.id}`} className="font-medium text-blue-700 hover:underline">
                        {run.name}
                      </Link>
                      <div className="text-xs text-slate-500">{run.tags.join(", ")}</div>
                    </td>
                    <td className="px-3 py-2">
                      <StatusBadge status={run.status} />
                    </td>
                    <td className="px-3 py-2">{run.environment}</td>
                    <td className="px-3 py-2">{run.policyModel}</td>
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
                    <td className="px-3 py-2 tabular-nums">{run.startedAt ? formatDuration(end.getTime() - run.startedAt.getTime()) : "—"}</td>
                    <td className="px-3 py-2">{run.launchedBy}{run.launchedByName ? ` · ${run.launchedByName}` : ""}</td>
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
