"use client";
/**
 * One task across training: its reward per step (mean of the group's scored samples, with the min–max band) and
 * the trajectories themselves, newest first, to read how the behaviour changed. Steps where no sample was
 * scored are gaps in the line, never zeros.
 */
import Link from "next/link";
import { useState } from "react";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Area, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { tooltipContentStyle, tooltipItemStyle, tooltipLabelStyle } from "@/components/charts/tooltip-style";
import { useTRPC } from "@/components/providers/trpc-provider";
import { formatNumber } from "@/lib/format";
import { QueryState } from "./badges";
import { Pager, TrajectoryTable } from "./trajectory-table";

const PAGE = 25;

export function TaskHistory({ runId, taskId }: { runId: string; taskId: string }) {
  const trpc = useTRPC();
  const [page, setPage] = useState(1);
  const history = useQuery(trpc.trajectories.taskHistory.queryOptions({ runId, taskId }));
  const list = useQuery({
    ...trpc.trajectories.list.queryOptions({
      runId,
      taskId,
      split: "train",
      sort: "step",
      dir: "desc",
      limit: PAGE,
      offset: (page - 1) * PAGE,
    }),
    placeholderData: keepPreviousData,
  });
  if (history.isLoading || history.isError)
    return <QueryState loading={history.isLoading} error={history.error} what="this task's history" />;
  const h = history.data!;
  const points = h.points.map((p) => ({ ...p, band: p.rewardMin === null || p.rewardMax === null ? null : [p.rewardMin, p.rewardMax] }));
  const totalUnscored = h.points.reduce((s, p) => s + p.unscored, 0);

  return (
    <article className="space-y-4">
      <nav className="flex flex-wrap gap-2 text-sm">
        <Link href={`/runs/${runId}`} className="text-blue-700 hover:underline">
          run
        </Link>
        <span className="text-slate-400">/</span>
        <Link href={`/runs/${runId}/trajectories?task=${encodeURIComponent(taskId)}`} className="text-blue-700 hover:underline">
          trajectories of this task
        </Link>
      </nav>
      <h1 className="break-all text-xl font-semibold">Task {taskId}</h1>
      {h.task !== null && (
        <details className="rounded border border-slate-200 bg-white p-2 text-sm">
          <summary className="cursor-pointer text-slate-600">Task definition</summary>
          <pre className="mt-2 max-h-72 overflow-auto text-xs" tabIndex={0}>
            {JSON.stringify(h.task, null, 2)}
          </pre>
        </details>
      )}
      <figure className="rounded border border-slate-200 bg-white p-3" data-testid="task-reward-chart">
        <figcaption className="mb-1 text-xs text-slate-600">
          Reward per step (mean of scored samples; band = min–max) · {h.points.length} steps
          {totalUnscored > 0 && ` · ${totalUnscored} unscored samples excluded`}
        </figcaption>
        {points.length === 0 ? (
          <p className="py-10 text-center text-xs text-slate-400">No training samples of this task yet.</p>
        ) : (
          <ResponsiveContainer width="100%" height={200}>
            <ComposedChart data={points} margin={{ top: 4, right: 8, bottom: 0, left: -12 }}>
              <CartesianGrid stroke="var(--color-slate-100)" />
              <XAxis dataKey="step" type="number" domain={["dataMin", "dataMax"]} tick={{ fontSize: 10 }} />
              <YAxis tick={{ fontSize: 10 }} tickFormatter={(v: number) => formatNumber(v, 2)} />
              <Tooltip
                contentStyle={tooltipContentStyle}
                labelStyle={tooltipLabelStyle}
                itemStyle={tooltipItemStyle}
                labelFormatter={(s) => `step ${s}`}
                formatter={(v, name) => [
                  Array.isArray(v) ? v.map((x) => formatNumber(Number(x))).join(" – ") : formatNumber(Number(v)),
                  name === "band" ? "min – max" : name === "rewardMean" ? "mean" : String(name),
                ]}
              />
              <Area
                dataKey="band"
                stroke="none"
                fill="var(--color-blue-200)"
                fillOpacity={0.5}
                isAnimationActive={false}
                connectNulls={false}
              />
              <Line
                dataKey="rewardMean"
                stroke="var(--color-blue-700)"
                strokeWidth={1.5}
                dot={{ r: 2 }}
                isAnimationActive={false}
                connectNulls={false}
              />
            </ComposedChart>
          </ResponsiveContainer>
        )}
      </figure>
      <section>
        <h2 className="mb-2 text-sm font-semibold text-slate-700">Trajectories, newest step first</h2>
        <QueryState loading={list.isLoading} error={list.error} empty={list.data?.total === 0} what="trajectories" />
        {list.data && list.data.total > 0 && (
          <>
            <TrajectoryTable
              runId={runId}
              rows={list.data.items}
              showTask={false}
              query={`task=${encodeURIComponent(taskId)}&sort=step&dir=desc`}
            />
            <Pager offset={list.data.offset} limit={PAGE} total={list.data.total} onPage={setPage} />
          </>
        )}
      </section>
    </article>
  );
}
