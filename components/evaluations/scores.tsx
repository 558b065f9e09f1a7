/** Small pieces every evaluation view shares: a score as a fraction, the policy's label, the "not a model" mark. */
import { formatNumber } from "@/lib/format";

export function Score({ value }: { value: number | null | undefined }) {
  return <span className="tabular-nums">{value === null || value === undefined ? "—" : value.toFixed(3)}</span>;
}

export function usd(value: number): string {
  return value === 0 ? "$0" : `$${value < 0.01 ? formatNumber(value, 2) : value.toFixed(2)}`;
}

/** Who played: a scripted replay is labelled as such wherever it appears, never as a model. */
export function PolicyLabel({ label, kind }: { label: string; kind: string | null }) {
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <span className="font-mono text-xs">{label}</span>
      {kind === "scripted" && (
        <span className="rounded bg-amber-100 px-1 text-[11px] text-amber-900" data-testid="scripted-badge">
          scripted · not a model
        </span>
      )}
      {kind === "checkpoint" && <span className="rounded bg-slate-200 px-1 text-[11px] text-slate-700">checkpoint</span>}
      {kind === "endpoint" && <span className="rounded bg-blue-100 px-1 text-[11px] text-blue-800">API model</span>}
    </span>
  );
}
