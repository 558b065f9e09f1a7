"use client";
/**
 * The rows of a trajectory list (browser and task history): one line per trajectory, linking to the inspector.
 * j / k move a cursor over the rows and Enter opens the one under it, as in the inspector.
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { useKeyboardNav } from "./use-keyboard-nav";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { AdvantageValue, RewardValue, TrajectoryStatusBadge } from "./badges";

export type TrajectoryRow = inferRouterOutputs<AppRouter>["trajectories"]["list"]["items"][number];

export function TrajectoryTable({
  runId,
  rows,
  query,
  showTask = true,
}: {
  runId: string;
  rows: TrajectoryRow[];
  query: string;
  showTask?: boolean;
}) {
  const suffix = query ? `?${query}` : "";
  const router = useRouter();
  // The cursor belongs to the rows it was set on: a new page or filter starts without one.
  const [marked, setMarked] = useState<{ rows: TrajectoryRow[]; index: number } | null>(null);
  const cursor = marked?.rows === rows ? marked.index : null;
  const moves = useMemo(() => {
    const move = (step: number) =>
      setMarked((m) => ({ rows, index: m?.rows === rows ? Math.min(rows.length - 1, Math.max(0, m.index + step)) : 0 }));
    return { next: () => move(1), prev: () => move(-1) };
  }, [rows]);
  useKeyboardNav(moves.prev, moves.next);
  useEffect(() => {
    if (cursor === null) return;
    document.querySelector(`[data-row-index="${cursor}"]`)?.scrollIntoView({ block: "nearest" });
    const open = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (e.key !== "Enter" || (target && ["INPUT", "TEXTAREA", "SELECT", "BUTTON", "A"].includes(target.tagName))) return;
      const row = rows[cursor];
      if (row) router.push(`/runs/${runId}/trajectories/${row.id}${suffix}`);
    };
    window.addEventListener("keydown", open);
    return () => window.removeEventListener("keydown", open);
  }, [cursor, rows, router, runId, suffix]);
  return (
    <div className="relative overflow-x-auto rounded border border-slate-200 bg-white">
      <table className="w-full text-left text-sm">
        <thead className="bg-slate-50 text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">Step</th>
            <th className="px-3 py-2 text-right">Reward</th>
            <th className="px-3 py-2 text-right">Advantage</th>
            <th className="px-3 py-2">Status</th>
            <th className="px-3 py-2 text-right">Turns</th>
            <th className="px-3 py-2">Ended</th>
            <th className="px-3 py-2">Group · sample</th>
            {showTask && <th className="px-3 py-2">Task</th>}
            <th className="px-3 py-2">Preview</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t, i) => (
            <tr
              key={t.id}
              className={`border-t border-slate-100 hover:bg-slate-50 ${cursor === i ? "bg-blue-50 outline outline-1 outline-blue-300" : ""}`}
              data-testid="trajectory-row"
              data-row-index={i}
              aria-selected={cursor === i}
            >
              <td className="px-3 py-2 tabular-nums">
                <Link href={`/runs/${runId}/trajectories/${t.id}${suffix}`} className="font-medium text-blue-700 hover:underline">
                  {t.step}
                  {t.split !== "train" && <span className="ml-1 text-xs text-slate-500">({t.split})</span>}
                </Link>
              </td>
              <td className="px-3 py-2 text-right">
                <RewardValue value={t.reward} />
              </td>
              <td className="px-3 py-2 text-right">
                <AdvantageValue value={t.advantage} />
              </td>
              <td className="max-w-xs px-3 py-2">
                <TrajectoryStatusBadge status={t.status} />
                {t.error && (
                  <span className="mt-0.5 block truncate text-xs text-red-700" title={t.error}>
                    {t.error}
                  </span>
                )}
              </td>
              <td className="px-3 py-2 text-right tabular-nums">{t.numTurns}</td>
              <td className="whitespace-nowrap px-3 py-2 font-mono text-xs text-slate-700" data-testid="end-reason">
                {t.endReason ?? "—"}
              </td>
              <td className="px-3 py-2 tabular-nums">
                <Link
                  href={`/runs/${runId}/groups/${t.groupId}`}
                  className="text-slate-700 underline decoration-slate-400"
                  title="Open the GRPO group"
                >
                  g{t.groupIndexInStep}
                </Link>
                <span className="text-slate-400"> · </span>#{t.indexInGroup}
              </td>
              {showTask && (
                <td className="max-w-48 truncate px-3 py-2">
                  <Link
                    href={`/runs/${runId}/tasks/${encodeURIComponent(t.taskId)}`}
                    className="text-slate-700 underline decoration-slate-400"
                  >
                    {t.taskId}
                  </Link>
                </td>
              )}
              {/* The first words of the episode, so rows can be told apart without opening each one. */}
              <td className="max-w-md truncate px-3 py-2 text-xs text-slate-600" title={t.preview ?? undefined} data-testid="preview">
                {t.preview ?? ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Pager({
  offset,
  limit,
  total,
  totalIsLowerBound = false,
  onPage,
}: {
  offset: number;
  limit: number;
  total: number;
  totalIsLowerBound?: boolean;
  onPage: (page: number) => void;
}) {
  const page = Math.floor(offset / limit) + 1;
  const pages = Math.max(1, Math.ceil(total / limit));
  return (
    <nav className="mt-3 flex flex-wrap items-center gap-3 text-sm" aria-label="Pagination">
      <span className="text-slate-600 tabular-nums">
        {total === 0 ? "0" : `${offset + 1}–${Math.min(offset + limit, total)}`} of {total.toLocaleString("en-US")}
        {totalIsLowerBound ? "+" : ""}
      </span>
      <button
        type="button"
        className="rounded border border-slate-300 px-2 py-1 disabled:opacity-40"
        disabled={page <= 1}
        onClick={() => onPage(page - 1)}
      >
        ← Previous
      </button>
      <span className="tabular-nums text-slate-500">
        page {page} / {pages}
        {totalIsLowerBound ? "+" : ""}
      </span>
      <button
        type="button"
        className="rounded border border-slate-300 px-2 py-1 disabled:opacity-40"
        disabled={page >= pages && !totalIsLowerBound}
        onClick={() => onPage(page + 1)}
      >
        Next →
      </button>
    </nav>
  );
}
