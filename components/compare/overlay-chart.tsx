"use client";
/** One metric key, one line per run, each run's own (server-downsampled) points: no cross-run resampling. */
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { tooltipContentStyle, tooltipItemStyle, tooltipLabelStyle } from "@/components/charts/tooltip-style";
import { axisWidthFor, formatStep, formatTick, formatValue, stepTicks, yAxisFor } from "@/lib/chart-axis";
import { metricUnit } from "@/lib/metric-units";

export const RUN_COLORS = ["#1d4ed8", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563"];

export interface OverlaySeries {
  runId: string;
  label: string;
  points: { step: number; value: number }[];
}

export function OverlayChart({ title, series }: { title: string; series: OverlaySeries[] }) {
  const hasData = series.some((s) => s.points.length > 0);
  const steps = series.flatMap((s) => s.points.map((p) => p.step));
  const [xMin, xMax] = steps.length ? [Math.min(...steps), Math.max(...steps)] : [0, 0];
  const axis = yAxisFor(series.flatMap((s) => s.points.map((p) => p.value)));
  const yLabel = (v: number) => (axis ? formatTick(v, axis.decimals) : formatValue(v));
  const unit = metricUnit(title);
  return (
    <figure className="rounded border border-slate-200 bg-white p-3" data-testid="overlay-chart">
      <figcaption className="mb-1 font-mono text-xs text-slate-600">
        {title}
        {unit && <span className="ml-1 text-slate-500">({unit.unit})</span>}
      </figcaption>
      {!hasData ? (
        <p className="py-10 text-center text-xs text-slate-600">None of the selected runs recorded this metric.</p>
      ) : (
        <ResponsiveContainer width="100%" height={200}>
          <LineChart margin={{ top: 4, right: 12, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="var(--color-slate-100)" />
            <XAxis
              dataKey="step"
              type="number"
              domain={[xMin, xMax]}
              ticks={stepTicks(xMin, xMax)}
              tickFormatter={formatStep}
              allowDuplicatedCategory={false}
              tick={{ fontSize: 10 }}
            />
            <YAxis
              width={axisWidthFor(axis ? axis.ticks.map(yLabel) : ["0.000"])}
              domain={axis?.domain ?? ["auto", "auto"]}
              ticks={axis?.ticks}
              tick={{ fontSize: 10 }}
              tickFormatter={yLabel}
              allowDataOverflow
            />
            <Tooltip
              wrapperStyle={{ zIndex: 20 }}
              contentStyle={tooltipContentStyle}
              labelStyle={tooltipLabelStyle}
              itemStyle={tooltipItemStyle}
              labelFormatter={(s) => `step ${formatStep(Number(s))}`}
              formatter={(v) => `${formatValue(Number(v))}${unit ? ` ${unit.unit}` : ""}`}
            />
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
