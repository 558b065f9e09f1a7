/** Small visual atoms shared by the trajectory views: who wrote a message, a trajectory's status, a reward. */
import type { MessageSource } from "@/lib/conversation";
import { formatNumber } from "@/lib/format";

const SOURCE_LABEL: Record<MessageSource | "judge", string> = {
  system: "system",
  policy: "policy",
  user_simulator: "simulated user",
  tool: "tool",
  tool_simulator: "tool simulator",
  environment: "environment",
  judge: "judge",
};

const SOURCE_STYLE: Record<MessageSource | "judge", string> = {
  system: "bg-slate-100 text-slate-700",
  policy: "bg-blue-100 text-blue-800",
  user_simulator: "bg-violet-100 text-violet-800",
  tool: "bg-teal-100 text-teal-800",
  tool_simulator: "bg-cyan-100 text-cyan-800",
  environment: "bg-amber-100 text-amber-800",
  judge: "bg-rose-100 text-rose-800",
};

export function SourceBadge({ source }: { source: MessageSource | "judge" }) {
  return (
    <span
      data-testid="source-badge"
      className={`inline-flex shrink-0 rounded px-1.5 py-0.5 text-[11px] font-medium ${SOURCE_STYLE[source] ?? SOURCE_STYLE.system}`}
    >
      {SOURCE_LABEL[source] ?? source}
    </span>
  );
}

const STATUS_STYLE: Record<string, string> = {
  ok: "bg-emerald-100 text-emerald-800",
  truncated: "bg-amber-100 text-amber-800",
  unscored: "bg-slate-200 text-slate-700",
  error: "bg-red-100 text-red-800",
};

export function TrajectoryStatusBadge({ status }: { status: string }) {
  return (
    <span className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium ${STATUS_STYLE[status] ?? STATUS_STYLE.ok}`}>{status}</span>
  );
}

/** Unscored (null) shows as "unscored", never as 0 or a dash that could be mistaken for one. */
export function RewardValue({ value, className = "" }: { value: number | null | undefined; className?: string }) {
  if (value === null || value === undefined) return <span className={`text-xs italic text-slate-500 ${className}`}>unscored</span>;
  return (
    <span className={`tabular-nums ${value > 0 ? "text-emerald-700" : value < 0 ? "text-red-700" : "text-slate-700"} ${className}`}>
      {formatNumber(value)}
    </span>
  );
}

export function AdvantageValue({ value }: { value: number | null | undefined }) {
  if (value === null || value === undefined) return <span className="text-slate-400">—</span>;
  const sign = value > 0 ? "+" : "";
  return (
    <span className={`tabular-nums ${value > 0 ? "text-emerald-700" : value < 0 ? "text-red-700" : "text-slate-600"}`}>
      {sign}
      {formatNumber(value)}
    </span>
  );
}

/** Loading / error / empty lines, so every view says the same thing the same way. */
export function QueryState({
  loading,
  error,
  empty,
  what,
}: {
  loading: boolean;
  error: { message: string } | null;
  empty?: boolean;
  what: string;
}) {
  if (loading) return <p className="text-sm text-slate-500">Loading {what}…</p>;
  if (error)
    return (
      <p role="alert" className="rounded border border-red-200 bg-red-50 p-3 text-sm text-red-800">
        Could not load {what}: {error.message}
      </p>
    );
  if (empty) return <p className="text-sm text-slate-500">No {what} match.</p>;
  return null;
}
