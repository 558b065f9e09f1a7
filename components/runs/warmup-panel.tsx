"use client";
/**
 * The SFT warm-up while it runs and after: steps done of the total, the loss of every step and the time left. A
 * warm-up takes minutes before the first GRPO step records anything, and without this the run page showed 0/N and
 * "No metrics recorded yet" the whole time.
 */
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { MetricChart } from "@/components/charts/metric-chart";
import { describeWarmup } from "@/lib/warmup-progress";

export function WarmupPanel({ runId, live }: { runId: string; live: boolean }) {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.runs.warmup.queryOptions({ id: runId }),
    refetchInterval: (query) => (live && !query.state.data?.finished ? 2000 : false),
  });
  const w = q.data;
  if (!w) return null;
  const points = w.losses.map((loss, i) => ({ x: i + 1, value: loss, raw: loss, band: null }));
  const pct = w.steps > 0 ? Math.min(100, (w.done / w.steps) * 100) : 0;
  return (
    <section className="space-y-2" data-testid="warmup-panel" aria-labelledby="warmup-heading">
      <h2 id="warmup-heading" className="text-sm font-semibold text-slate-700">
        SFT warm-up
      </h2>
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <div
          className="h-1.5 w-32 overflow-hidden rounded bg-slate-200"
          role="progressbar"
          aria-label="SFT warm-up steps"
          aria-valuemin={0}
          aria-valuemax={w.steps}
          aria-valuenow={w.done}
        >
          <div className="h-full bg-violet-600" style={{ width: `${pct}%` }} />
        </div>
        <p className="text-slate-700" data-testid="warmup-status">
          {describeWarmup(w)}
        </p>
      </div>
      {points.length > 0 && (
        <div className="max-w-xl">
          <MetricChart title="sft/loss" points={points} xMode="step" xLabel="warm-up step" testId="warmup-chart" />
        </div>
      )}
    </section>
  );
}
