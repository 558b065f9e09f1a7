"use client";
/**
 * One metric's curve. Data arrive already downsampled by the server (mean with a min–max band per bucket); the
 * chart smooths on the client and draws missing stretches as gaps (connectNulls=false), never as zeros. The y axis
 * comes from lib/chart-axis (distinct ticks, no magnified noise), the x axis ticks at round steps or round local
 * times (with dates when the run spans days), and the caption states the metric's unit (lib/metric-units). Each
 * chart has its own tooltip; charts given the same `syncId` show theirs together. A click on a step calls
 * `onPickStep` (the run page opens the trajectory browser there). The chart is drawn only once it scrolls into
 * view: a run page with 40 curves would otherwise spend seconds drawing charts nobody sees.
 */
import { useEffect, useRef, useState } from "react";
import { Area, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { tooltipContentStyle, tooltipItemStyle, tooltipLabelStyle } from "./tooltip-style";
import { axisWidthFor, formatStep, formatTick, formatValue, stepTicks, yAxisFor } from "@/lib/chart-axis";
import { formatTimestamp, timeAxisFor } from "@/lib/chart-time-axis";
import { metricUnit } from "@/lib/metric-units";

export interface ChartPoint {
  x: number;
  value: number | null;
  raw: number | null;
  band: [number, number] | null;
}

export type XAxisMode = "step" | "time";

/**
 * Charts that come into view are drawn one per frame, in the order they asked: drawn together, the first curve
 * would appear only once every chart on screen had been laid out (a screenful of 400-point charts is ~1 s here).
 */
const drawQueue: (() => void)[] = [];
let drawing = false;
function requestDraw(draw: () => void): void {
  drawQueue.push(draw);
  if (drawing) return;
  drawing = true;
  const next = () => {
    const d = drawQueue.shift();
    if (!d) {
      drawing = false;
      return;
    }
    d();
    // after the browser has painted this chart
    requestAnimationFrame(() => setTimeout(next, 0));
  };
  next();
}

/** True once the element has come within 200 px of the viewport and its turn to draw has come (then stays true). */
function useSeen<T extends Element>(): [React.RefObject<T | null>, boolean] {
  const ref = useRef<T>(null);
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || seen) return;
    let queued = false;
    let live = true;
    const observer = new IntersectionObserver(
      (entries) => {
        if (queued || !entries.some((e) => e.isIntersecting)) return;
        queued = true;
        observer.disconnect();
        requestDraw(() => live && setSeen(true));
      },
      { rootMargin: "200px" },
    );
    observer.observe(el);
    return () => {
      live = false;
      observer.disconnect();
    };
  }, [seen]);
  return [ref, seen];
}

export function MetricChart({
  title,
  points,
  xMode,
  syncId,
  onPickStep,
  logScale = false,
  pinned,
  onTogglePin,
  xLabel,
  testId = "metric-chart",
}: {
  title: string;
  /** The figure's test id: charts outside the metric panel (the warm-up's) are told apart from its grid. */
  testId?: string;
  /** The x axis's title; "step" or "local time" by default. */
  xLabel?: string;
  points: ChartPoint[];
  xMode: XAxisMode;
  /** A log y-axis, where every value is positive (a series with zeros or negatives stays linear, and says so). */
  logScale?: boolean;
  /** Charts with the same id show their tooltips at the same x together (the panel's "sync hover"). */
  syncId?: string;
  onPickStep?: (step: number) => void;
  /** A pin toggle in the caption when given (pinned charts lead the grid). */
  pinned?: boolean;
  onTogglePin?: () => void;
}) {
  const [ref, seen] = useSeen<HTMLElement>();
  const values = points.flatMap((p) => [p.raw, p.value, ...(p.band ?? [])]).filter((v): v is number => v !== null);
  const log = logScale && values.length > 0 && values.every((v) => v > 0);
  const axis = log ? null : yAxisFor(values);
  const unit = metricUnit(title);
  const withUnit = (v: string) => (unit && v !== "—" ? `${v} ${unit.unit}` : v);
  const pick =
    onPickStep && xMode === "step"
      ? (state: { activeLabel?: string | number } | null) => state?.activeLabel !== undefined && onPickStep(Number(state.activeLabel))
      : undefined;
  const xs = points.map((p) => p.x);
  const [xMin, xMax] = xs.length ? [Math.min(...xs), Math.max(...xs)] : [0, 0];
  const time = xMode === "time" ? timeAxisFor(xMin, xMax) : null;
  const xTicks = time ? time.ticks : stepTicks(xMin, xMax);
  const formatX = (x: number) => (time ? time.format(x) : formatStep(x));
  const yLabel = (v: number) => (axis ? formatTick(v, axis.decimals) : formatValue(v));
  const yWidth = axisWidthFor(axis ? axis.ticks.map(yLabel) : ["0.000"]);
  const hasBand = points.some((p) => p.band !== null);
  const latest = [...points].reverse().find((p) => p.raw !== null)?.raw ?? null;
  return (
    <figure ref={ref} className="rounded border border-slate-200 bg-white p-3" data-testid={testId} data-key={title}>
      <figcaption className="mb-1 flex justify-between gap-2 font-mono text-xs text-slate-600">
        <span className="min-w-0 truncate">
          {onTogglePin && (
            <button
              type="button"
              className={`mr-1 ${pinned ? "text-amber-600" : "text-slate-500 hover:text-slate-700"}`}
              aria-label={pinned ? `Unpin ${title}` : `Pin ${title}`}
              aria-pressed={Boolean(pinned)}
              onClick={onTogglePin}
            >
              {pinned ? "★" : "☆"}
            </button>
          )}
          <span>{title}</span>
          {unit && (
            <span className="ml-1 text-slate-500" title={unit.description} data-testid="metric-unit">
              ({unit.unit})
            </span>
          )}
          {logScale && !log && points.length > 0 && <span className="ml-2 text-slate-500">(linear: values ≤ 0)</span>}
        </span>
        <span className="shrink-0 text-slate-600" data-testid="metric-latest">
          {withUnit(formatValue(latest))}
        </span>
      </figcaption>
      {points.length === 0 ? (
        <p className="py-10 text-center text-xs text-slate-600">No data yet</p>
      ) : !seen ? (
        <div style={{ height: 160 }} aria-hidden />
      ) : (
        <ResponsiveContainer width="100%" height={160}>
          <ComposedChart
            data={points}
            margin={{ top: 4, right: 12, bottom: 10, left: 0 }}
            syncId={syncId}
            onClick={pick}
            className={pick ? "cursor-pointer" : undefined}
          >
            <CartesianGrid stroke="var(--color-slate-100)" />
            <XAxis
              dataKey="x"
              type="number"
              domain={[xMin, xMax]}
              ticks={xTicks}
              tick={{ fontSize: 10 }}
              tickFormatter={formatX}
              minTickGap={12}
              label={{
                value: xLabel ?? (time ? "local time" : "step"),
                position: "insideBottomRight",
                offset: -10,
                fontSize: 10,
                fill: "var(--color-slate-600)",
              }}
            />
            <YAxis
              width={yWidth}
              tick={{ fontSize: 10 }}
              scale={log ? "log" : "auto"}
              domain={axis?.domain ?? ["auto", "auto"]}
              ticks={axis?.ticks}
              tickFormatter={yLabel}
              allowDataOverflow
            />
            <Tooltip
              // Above the neighbouring charts, and free to leave this one's box rather than being cut by it.
              wrapperStyle={{ zIndex: 20 }}
              allowEscapeViewBox={{ x: false, y: true }}
              contentStyle={tooltipContentStyle}
              labelStyle={tooltipLabelStyle}
              itemStyle={tooltipItemStyle}
              labelFormatter={(x) => (time ? formatTimestamp(Number(x)) : `step ${formatStep(Number(x))}`)}
              formatter={(v, name) => [
                Array.isArray(v) ? v.map((n) => withUnit(formatValue(Number(n)))).join(" – ") : withUnit(formatValue(Number(v))),
                name === "band" ? "min – max" : name === "raw" ? "raw" : "smoothed",
              ]}
            />
            {/* No band to draw (a series without buckets, e.g. the warm-up loss): no empty area path either. */}
            {hasBand && (
              <Area
                dataKey="band"
                stroke="none"
                fill="var(--color-blue-200)"
                fillOpacity={0.4}
                isAnimationActive={false}
                connectNulls={false}
              />
            )}
            <Line dataKey="raw" stroke="var(--color-blue-300)" dot={false} strokeWidth={1} isAnimationActive={false} connectNulls={false} />
            <Line
              dataKey="value"
              stroke="var(--color-blue-700)"
              dot={false}
              strokeWidth={1.5}
              isAnimationActive={false}
              connectNulls={false}
            />
          </ComposedChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}
