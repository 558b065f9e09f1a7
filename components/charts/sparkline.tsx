/** A tiny inline reward curve for table rows: an SVG polyline scaled to its own min–max, no axes. */
export function Sparkline({ values, width = 80, height = 20 }: { values: number[]; width?: number; height?: number }) {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length < 2) return <span className="inline-block text-xs text-slate-400" style={{ width }} />;
  const lo = Math.min(...finite);
  const hi = Math.max(...finite);
  const span = hi - lo || 1;
  const points = finite
    .map((v, i) => `${((i / (finite.length - 1)) * width).toFixed(1)},${(height - 2 - ((v - lo) / span) * (height - 4)).toFixed(1)}`)
    .join(" ");
  return (
    <svg
      width={width}
      height={height}
      className="inline-block align-middle"
      role="img"
      aria-label={`reward from ${lo.toFixed(2)} to ${hi.toFixed(2)}`}
      data-testid="sparkline"
    >
      <polyline points={points} fill="none" stroke="var(--color-blue-700)" strokeWidth={1.25} />
    </svg>
  );
}
