"use client";
/** One metric key, one line per run, each run's own (server-downsampled) points: no cross-run resampling. */
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatNumber } from "@/lib/format";

export const RUN_COLORS = ["#1d4ed8", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563"];

export interface OverlaySeries {
  runId: string;
  label: string;
  points: { step: number; value: number }[];
}

export function OverlayChart({ title, series }: { title: string; series: OverlaySeries[] }) {
  const hasData = series.some((s) => s.points.length > 0);
  return (
    <figure className="rounded border border-slate-200 bg-white p-3" data-testid="overlay-chart">
      <figcaption className="mb-1 font-mono text-xs text-slate-600">{title}</figcaption>
      {!hasData ? (
        <p className="py-10 text-center text-xs text-slate-400">None of the selected runs recorded this metric.</p>
      ) : (
        <ResponsiveContainer width="100%" height={200}>
          <LineChart margin={{ top: 4, right: 8, bottom: 0, left: -12 }}>
            <CartesianGrid stroke="var(--color-slate-100)" />
            <XAxis dataKey="step" type="number" domain={["dataMin", "dataMax"]} allowDuplicatedCategory={false} tick={{ fontSize: 10 }} />
            <YAxis tick={{ fontSize: 10 }} tickFormatter={(v: number) => formatNumber(v, 2)} />
            <Tooltip labelFormatter={(s) => `step ${s}`} formatter={(v) => formatNumber(Number(v))} />
            {/* In the header's order (recharts sorts legend items by name unless told otherwise). */}
            <Legend wrapperStyle={{ fontSize: 11 }} itemSorter={(item) => series.findIndex((s) => s.label === item.value)} />
            {series.map((s, i) => (
              <Line
                key={s.runId}
                data={s.points}
                dataKey="value"
                name={s.label}
                stroke={RUN_COLORS[i % RUN_COLORS.length]}
                dot={false}
                strokeWidth={1.5}
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}
