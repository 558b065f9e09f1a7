const STYLES: Record<string, string> = {
  queued: "bg-slate-100 text-slate-700",
  running: "bg-blue-100 text-blue-800",
  succeeded: "bg-emerald-100 text-emerald-800",
  failed: "bg-red-100 text-red-800",
  cancelled: "bg-amber-100 text-amber-800",
  // An external run whose client went silent: not failed, but nothing is arriving.
  stale: "bg-orange-100 text-orange-800",
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span
      data-testid="run-status"
      className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium ${STYLES[status] ?? STYLES.queued}`}
    >
      {status}
    </span>
  );
}
