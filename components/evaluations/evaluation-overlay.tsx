"use client";
/**
 * The compare view's overlay of evaluations: their pass^k curves on one chart (k on the x axis) and, per task, each
 * one's successes of its trials — where a checkpoint and an API model part ways.
 */
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { OverlayChart, SeriesDot, type SeriesStyle } from "@/components/compare/overlay-chart";
import { Score, usd } from "./scores";

export function EvaluationOverlay({
  runIds,
  label,
  style,
}: {
  runIds: string[];
  label: (id: string) => string;
  /** The run's colour on the rest of the page, so an evaluation is the same colour in every legend. */
  style: (id: string) => SeriesStyle;
}) {
  const trpc = useTRPC();
  const overlay = useQuery({ ...trpc.evaluations.compare.queryOptions({ runIds }), enabled: runIds.length > 0 });
  const data = overlay.data;
  if (!data || data.runs.length === 0) return null;
  return (
    <section className="space-y-3" data-testid="evaluation-overlay">
      <h2 className="text-sm font-semibold text-slate-700">Evaluations</h2>
      <OverlayChart
        title="pass^k by k (τ²-bench)"
        series={data.runs.map((r) => ({
          id: r.runId,
          label: label(r.runId),
          ...style(r.runId),
          points: r.passHat.map((value, i) => ({ step: i + 1, value })),
        }))}
      />
      <div className="overflow-x-auto rounded border border-slate-200 bg-white">
        <table className="w-full text-left text-xs">
          <thead className="bg-slate-50 text-slate-500">
            <tr>
              <th className="px-2 py-1">task</th>
              {data.runs.map((r) => (
                <th key={r.runId} className="max-w-48 truncate px-2 py-1" title={r.policy}>
                  <span className="flex items-center gap-1">
                    <SeriesDot {...style(r.runId)} />
                    {label(r.runId)}
                  </span>
                </th>
              ))}
            </tr>
            <tr className="text-slate-600">
              <td className="px-2 py-1">pass@1 · mean reward · cost</td>
              {data.runs.map((r) => (
                <td key={r.runId} className="px-2 py-1">
                  <Score value={r.passHat[0]} /> · <Score value={r.rewardMean} /> · {usd(r.costUsd)}
                </td>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.tasks.map((t) => (
              <tr key={t.taskId} className="border-t border-slate-100">
                <td className="px-2 py-1 font-mono">{t.taskId}</td>
                {t.cells.map((c, i) => (
                  <td
                    key={i}
                    className={`px-2 py-1 tabular-nums ${c && c.trials ? (c.successes === c.trials ? "text-emerald-700" : c.successes === 0 ? "text-red-700" : "") : "text-slate-400"}`}
                  >
                    {c ? `${c.successes}/${c.trials}` : "not played"}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
