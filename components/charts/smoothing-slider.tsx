/** The EMA smoothing weight of a chart view (0 = raw … 0.99), with its value beside it. */
export function SmoothingSlider({ value, onChange, className = "" }: { value: number; onChange: (v: number) => void; className?: string }) {
  return (
    <label className={`flex items-center gap-2 ${className}`}>
      Smoothing
      <input
        aria-label="Smoothing"
        type="range"
        min={0}
        max={0.99}
        step={0.01}
        value={value}
        onChange={(e) => onChange(Number(e.target.value))}
      />
      <span className="w-8 tabular-nums">{value.toFixed(2)}</span>
    </label>
  );
}
