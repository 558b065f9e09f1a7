"use client";
/**
 * One metric's curve. Data arrive already downsampled by the server (mean with a min–max band per bucket); the
 * chart smooths on the client and draws missing stretches as gaps (connectNulls=false), never as zeros. The y axis
 * comes from lib/chart-axis (distinct ticks, no magnified noise). Charts with the same `syncId` share a hover line;
 * a click on a step calls `onPickStep` (the run page opens the trajectory browser there). The chart is drawn only
 * once it scrolls into view: a run page with 40 curves would otherwise spend seconds drawing charts nobody sees.
 */
import { useEffect, useRef, useState } from "react";
import { Area, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatTick, yAxisFor } from "@/lib/chart-axis";
import { formatNumber } from "@/lib/format";

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
}: {
  title: string;
  points: ChartPoint[];
  xMode: XAxisMode;
  /** A log y-axis, where every value is positive (a series with zeros or negatives stays linear, and says so). */
  logScale?: boolean;
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
  const pick =
    onPickStep && xMode === "step"
      ? (state: { activeLabel?: string | number } | null) => state?.activeLabel !== undefined && onPickStep(Number(state.activeLabel))
      : undefined;
  const formatX = (x: number) =>
    xMode === "step" ? String(x) : new Date(x).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return (
    <figure ref={ref} className="rounded border border-slate-200 bg-white p-3" data-testid="metric-chart" data-key={title}>
      <figcaption className="mb-1 flex justify-between font-mono text-xs text-slate-600">
        <span>
          {onTogglePin && (
            <button
              type="button"
              className={`mr-1 ${pinned ? "text-amber-500" : "text-slate-300 hover:text-slate-500"}`}
              aria-label={pinned ? `Unpin ${title}` : `Pin ${title}`}
              aria-pressed={Boolean(pinned)}
              onClick={onTogglePin}
            >
              {pinned ? "★" : "☆"}
            </button>
          )}
          <span>{title}</span>
          {logScale && !log && points.length > 0 && <span className="ml-2 text-slate-400">(linear: values ≤ 0)</span>}
        </span>
        <span className="text-slate-400">{formatNumber([...points].reverse().find((p) => p.raw !== null)?.raw ?? null)}</span>
      </figcaption>
      {points.length === 0 ? (
        <p className="py-10 text-center text-xs text-slate-400">No data yet</p>
      ) : !seen ? (
        <div style={{ height: 160 }} aria-hidden />
      ) : (
        <ResponsiveContainer width="100%" height={160}>
          <ComposedChart
            data={points}
            margin={{ top: 4, right: 8, bottom: 0, left: -12 }}
            syncId={syncId}
            onClick={pick}
            className={pick ? "cursor-pointer" : undefined}
          >
            <CartesianGrid stroke="var(--color-slate-100)" />
            <XAxis dataKey="x" type="number" domain={["dataMin", "dataMax"]} tick={{ fontSize: 10 }} tickFormatter={formatX} />
            <YAxis
              tick={{ fontSize: 10 }}
              scale={log ? "log" : "auto"}
              domain={axis?.domain ?? ["auto", "auto"]}
              ticks={axis?.ticks}
              tickFormatter={(v: number) => (axis ? formatTick(v, axis.decimals) : formatNumber(v, 2))}
              allowDataOverflow
            />
            <Tooltip
              labelFormatter={(x) => (xMode === "step" ? `step ${x}` : new Date(Number(x)).toLocaleString())}
              formatter={(v, name) => [
                Array.isArray(v) ? v.map((n) => formatNumber(Number(n))).join(" – ") : formatNumber(Number(v)),
                name === "band" ? "min – max" : name === "raw" ? "raw" : "smoothed",
              ]}
            />
            <Area
              dataKey="band"
              stroke="none"
              fill="var(--color-blue-200)"
              fillOpacity={0.4}
              isAnimationActive={false}
              connectNulls={false}
            />
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
