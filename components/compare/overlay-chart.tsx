"use client";
/**
 * One metric key, one line per run (or per group of runs), each with its own points: no cross-run resampling here.
 * A group's line is the mean of its runs with its spread drawn as a band behind it (lib/run-groups); the tooltip
 * says which spread and over how many runs.
 */
import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { tooltipContentStyle, tooltipItemStyle, tooltipLabelStyle } from "@/components/charts/tooltip-style";
import { axisWidthFor, formatStep, formatTick, formatValue, stepTicks, yAxisFor } from "@/lib/chart-axis";
import { metricUnit } from "@/lib/metric-units";
import { bandKey, countKey, overlayRows, valueKey, type OverlayRow } from "./overlay-rows";

/** Twelve colours distinct on white and on the dark card; a run (or group) keeps its index's colour everywhere. */
export const RUN_COLORS = [
  "#1d4ed8",
  "#dc2626",
  "#059669",
  "#d97706",
  "#7c3aed",
  "#0891b2",
  "#db2777",
  "#4b5563",
  "#65a30d",
  "#9333ea",
  "#ea580c",
  "#0d9488",
];

export interface SeriesStyle {
  color: string;
  /** Past the palette's twelve colours a series is dashed, so runs i and i + 12 still differ. */
  dashed: boolean;
}

export const seriesStyle = (index: number): SeriesStyle => ({
  color: RUN_COLORS[index % RUN_COLORS.length],
  dashed: Math.floor(index / RUN_COLORS.length) % 2 === 1,
});

/** A series' mark beside its name: filled, or a ring for a dashed series. */
export function SeriesDot({ color, dashed }: SeriesStyle) {
  return (
    <span
      aria-hidden
      className="inline-block h-2.5 w-2.5 shrink-0 rounded-full"
      style={dashed ? { border: `2px dashed ${color}` } : { background: color }}
    />
  );
}

export interface OverlayPoint {
  step: number;
  value: number;
  /** A group's spread at this step (null: one run only); absent for a single run's curve. */
  band?: [number, number] | null;
  /** How many runs the value averages. */
  n?: number;
}

export interface OverlaySeries extends SeriesStyle {
  id: string;
  label: string;
  points: OverlayPoint[];
}

export function OverlayChart({ title, series, bandLabel }: { title: string; series: OverlaySeries[]; bandLabel?: string }) {
  const hasData = series.some((s) => s.points.length > 0);
  const steps = series.flatMap((s) => s.points.map((p) => p.step));
  const [xMin, xMax] = steps.length ? [Math.min(...steps), Math.max(...steps)] : [0, 0];
  const axis = yAxisFor(series.flatMap((s) => s.points.flatMap((p) => [p.value, ...(p.band ?? [])])));
  const yLabel = (v: number) => (axis ? formatTick(v, axis.decimals) : formatValue(v));
  const unit = metricUnit(title);
  const withUnit = (v: number) => `${formatValue(v)}${unit ? ` ${unit.unit}` : ""}`;
  const rows = overlayRows(series);
  return (
    <figure className="rounded border border-slate-200 bg-white p-3" data-testid="overlay-chart" data-key={title}>
      <figcaption className="mb-1 font-mono text-xs text-slate-600">
        {title}
        {unit && <span className="ml-1 text-slate-500">({unit.unit})</span>}
        {bandLabel && <span className="ml-1 text-slate-500">· mean, band {bandLabel}</span>}
      </figcaption>
      {!hasData ? (
        <p className="py-10 text-center text-xs text-slate-600">None of the selected runs recorded this metric.</p>
      ) : (
        <ResponsiveContainer width="100%" height={200}>
          <ComposedChart data={rows} margin={{ top: 4, right: 12, bottom: 0, left: 0 }}>
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
              // In the legend's order (recharts would sort by name).
              itemSorter={(item) => Number(String(item.dataKey).slice(1))}
              formatter={(v, _name, item) => {
                const { payload: row, dataKey } = item as { payload?: OverlayRow; dataKey?: string };
                const i = Number(String(dataKey).slice(1));
                const band = row?.[bandKey(i)] as [number, number] | null | undefined;
                const n = row?.[countKey(i)] as number | undefined;
                if (n === undefined) return withUnit(Number(v));
                if (!band) return `${withUnit(Number(v))} (1 run)`;
                return `${withUnit(Number(v))} (${bandLabel}: ${formatValue(band[0])} – ${formatValue(band[1])}, ${n} runs)`;
              }}
            />
            {/* In the header's order (recharts sorts legend items by name unless told otherwise). */}
            <Legend wrapperStyle={{ fontSize: 11 }} itemSorter={(item) => Number(String(item.dataKey).slice(1))} />
            {series.map((s, i) =>
              s.points.some((p) => p.band) ? (
                <Area
                  key={`${s.id}-band`}
                  dataKey={bandKey(i)}
                  name={`${s.label} band`}
                  stroke="none"
                  fill={s.color}
                  fillOpacity={0.15}
                  isAnimationActive={false}
                  // No band across a point averaging one run (null); groups share x positions, so no other gaps.
                  connectNulls={false}
                  tooltipType="none"
                  legendType="none"
                />
              ) : null,
            )}
            {series.map((s, i) => (
              <Line
                key={s.id}
                dataKey={valueKey(i)}
                name={s.label}
                stroke={s.color}
                strokeDasharray={s.dashed ? "5 3" : undefined}
                dot={false}
                strokeWidth={1.5}
                isAnimationActive={false}
                connectNulls
              />
            ))}
          </ComposedChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}
