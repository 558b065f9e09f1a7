export function ProgressBar({ done, total }: { done: number; total: number }) {
  const pct = total > 0 ? Math.min(100, (done / total) * 100) : 0;
  return (
    <div className="flex items-center gap-2" title={`${done} / ${total} steps`}>
      <div className="h-1.5 w-12 overflow-hidden rounded bg-slate-200 sm:w-24">
        <div className="h-full bg-blue-600" style={{ width: `${pct}%` }} />
      </div>
      <span className="text-xs tabular-nums text-slate-600">
        {done}/{total}
      </span>
    </div>
  );
}
