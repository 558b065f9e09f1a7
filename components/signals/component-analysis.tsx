"use client";
/** Per-component reward analysis: each component's curve, its correlation with the total reward, and disagreements. */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { tooltipContentStyle, tooltipItemStyle, tooltipLabelStyle } from "@/components/charts/tooltip-style";
import { useTRPC } from "@/components/providers/trpc-provider";
import { QueryState, RewardValue } from "@/components/trajectories/badges";
import { formatNumber } from "@/lib/format";

const COLORS = ["#1d4ed8", "#059669", "#d97706", "#db2777", "#7c3aed", "#0891b2"];

export function ComponentAnalysis({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.signals.components.queryOptions({ runId }));
  if (!q.data) return <QueryState loading={q.isLoading} error={q.error} what="reward components" />;
  const a = q.data;
  if (a.components.length === 0) return <p className="text-sm text-slate-500">This run records no reward components.</p>;
  const data = a.steps.map((s) => ({ step: s.step, reward: s.rewardMean, ...s.means }));
  const counts = a.components.filter((c) => a.scales[c] === "count");
  const w = a.window;
  return (
    <div className="space-y-4" data-testid="component-analysis">
      <p className="text-xs text-slate-600" data-testid="component-window">
        {w.firstStep === null
          ? "No trajectories yet."
          : `Steps ${w.firstStep}–${w.lastStep}: ${w.trajectories.toLocaleString("en-US")} trajectories${a.truncated ? ` (the most recent only; earlier steps are left out)` : ""}.`}
        {counts.length > 0 && (
          <span data-testid="count-components">
            {" "}
            Counts on the right axis: {counts.join(", ")}; the reward and the 0–1 components on the left.
          </span>
        )}
      </p>
      <div className="h-64 rounded border border-slate-200 bg-white p-2" data-testid="component-chart">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={data}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--color-slate-200)" />
            <XAxis dataKey="step" fontSize={11} label={{ value: "step", position: "insideBottomRight", offset: -4, fontSize: 10 }} />
            <YAxis yAxisId="unit" fontSize={11} domain={[(min: number) => Math.min(0, min), (max: number) => Math.max(1, max)]} />
            {counts.length > 0 && (
              <YAxis
                yAxisId="count"
                orientation="right"
                fontSize={11}
                allowDecimals={false}
                label={{ value: "count", angle: 90, position: "insideRight", fontSize: 10 }}
              />
            )}
            <Tooltip
              contentStyle={tooltipContentStyle}
              labelStyle={tooltipLabelStyle}
              itemStyle={tooltipItemStyle}
              formatter={(v) => formatNumber(typeof v === "number" ? v : null)}
            />
            <Legend />
            <Line
              yAxisId="unit"
              dataKey="reward"
              name="total reward"
              stroke="var(--color-slate-900)"
              strokeWidth={2}
              dot={false}
              connectNulls={false}
              isAnimationActive={false}
            />
            {a.components.map((c, i) => (
              <Line
                key={c}
                yAxisId={a.scales[c] === "count" ? "count" : "unit"}
                dataKey={c}
                name={a.scales[c] === "count" ? `${c} (right axis)` : c}
                stroke={COLORS[i % COLORS.length]}
                strokeDasharray={a.scales[c] === "count" ? "4 3" : undefined}
                dot={false}
                connectNulls={false}
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
      <table className="text-sm">
        <thead className="text-left text-xs text-slate-500">
          <tr>
            <th className="pr-6">Component</th>
            <th title="Pearson correlation with the total reward over the scored trajectories">Correlation with the reward</th>
          </tr>
        </thead>
        <tbody>
          {a.components.map((c) => (
            <tr key={c} className="border-t border-slate-100" data-testid="component-row">
              <td className="pr-6">{c}</td>
              <td className="tabular-nums">
                {a.correlations[c] === null || a.correlations[c] === undefined ? "—" : a.correlations[c]!.toFixed(2)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div>
        <h3 className="mb-1 text-sm font-semibold text-slate-700">Trajectories where components disagree ({a.disagreements.length})</h3>
        <ul className="space-y-1 text-sm">
          {a.disagreements.slice(0, 15).map((d) => (
            <li key={d.trajectoryId} data-testid="component-disagreement">
              <Link className="text-blue-700 underline" href={`/runs/${runId}/trajectories/${d.trajectoryId}`}>
                step {d.step}
              </Link>{" "}
              · reward <RewardValue value={d.reward} /> · high: {d.high.join(", ")} · low: {d.low.join(", ")}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
