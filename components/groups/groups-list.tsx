"use client";
/**
 * A run's GRPO groups, newest step first (or by reward spread), a page at a time (a long run has thousands); the
 * zero-variance filter finds the groups GRPO learned nothing from.
 */
import Link from "next/link";
import { useState } from "react";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { formatNumber } from "@/lib/format";
import { QueryState } from "@/components/trajectories/badges";
import { Pager } from "@/components/trajectories/trajectory-table";

const PAGE = 50;

export function GroupsList({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const [page, setPage] = useState(1);
  const [variance, setVariance] = useState<"all" | "zero" | "nonzero">("all");
  const [sort, setSort] = useState<"step" | "std_desc" | "std_asc">("step");
  const groups = useQuery({
    ...trpc.groups.list.queryOptions({ runId, variance, sort, limit: PAGE, offset: (page - 1) * PAGE }),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="space-y-4">
      <header className="flex flex-wrap items-baseline gap-3">
        <h1 className="text-xl font-semibold">GRPO groups</h1>
        <Link href={`/runs/${runId}`} className="text-sm text-blue-700 hover:underline">
          run
        </Link>
        <Link href={`/runs/${runId}/trajectories`} className="text-sm text-blue-700 hover:underline">
          trajectories
        </Link>
        <span className="ml-auto flex gap-2 text-sm">
          <select
            aria-label="Reward spread"
            className="rounded border border-slate-300 px-2 py-1"
            value={variance}
            onChange={(e) => (setVariance(e.target.value as typeof variance), setPage(1))}
          >
            <option value="all">all groups</option>
            <option value="zero">no reward spread (std 0)</option>
            <option value="nonzero">some reward spread</option>
          </select>
          <select
            aria-label="Sort groups"
            className="rounded border border-slate-300 px-2 py-1"
            value={sort}
            onChange={(e) => (setSort(e.target.value as typeof sort), setPage(1))}
          >
            <option value="step">newest step first</option>
            <option value="std_desc">largest std first</option>
            <option value="std_asc">smallest std first</option>
          </select>
        </span>
      </header>
      <QueryState loading={groups.isLoading} error={groups.error} empty={groups.data?.total === 0} what="groups" />
      {groups.data && groups.data.total > 0 && (
        <>
          <div className="relative overflow-x-auto rounded border border-slate-200 bg-white">
            <table className="w-full text-left text-sm">
              <thead className="bg-slate-50 text-xs uppercase text-slate-500">
                <tr>
                  <th className="px-3 py-2">Step · group</th>
                  <th className="px-3 py-2">Task</th>
                  <th className="px-3 py-2 text-right">Samples</th>
                  <th className="px-3 py-2 text-right">Reward mean ± std</th>
                  <th className="px-3 py-2">Note</th>
                </tr>
              </thead>
              <tbody>
                {groups.data.items.map((g) => (
                  <tr key={g.id} className="border-t border-slate-100 hover:bg-slate-50" data-testid="group-row">
                    <td className="px-3 py-2">
                      <Link className="text-blue-700 hover:underline" href={`/runs/${runId}/groups/${g.id}`}>
                        {g.step} · g{g.indexInStep}
                      </Link>
                      {g.split !== "train" && <span className="ml-1 text-xs text-slate-500">({g.split})</span>}
                    </td>
                    <td className="max-w-56 truncate px-3 py-2">{g.taskId}</td>
                    <td className="px-3 py-2 text-right tabular-nums">{g.size}</td>
                    <td className="px-3 py-2 text-right tabular-nums" data-std={g.rewardStd ?? ""}>
                      {formatNumber(g.rewardMean)} ± {formatNumber(g.rewardStd)}
                    </td>
                    <td className="px-3 py-2 text-xs text-slate-500">{g.dropped ? "dropped (no variance)" : ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager offset={groups.data.offset} limit={PAGE} total={groups.data.total} onPage={setPage} />
        </>
      )}
    </section>
  );
}
