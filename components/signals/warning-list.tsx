"use client";
/** Reward-hacking / simulator-failure warnings, each with its step and links to example trajectories. */
import Link from "next/link";
import type { Signal } from "@/lib/reward-signals";

/** `notLearning`: the run has health problems, so "no warnings" must not read as an all-clear. */
export function WarningList({
  runId,
  signals,
  limit,
  notLearning = false,
}: {
  runId: string;
  signals: Signal[];
  limit?: number;
  notLearning?: boolean;
}) {
  if (signals.length === 0) {
    return notLearning ? (
      <p className="text-sm text-slate-600" data-testid="no-warnings">
        No reward-hacking signals, which means little here: the run is not learning (see above).
      </p>
    ) : (
      <p className="text-sm text-emerald-700" data-testid="no-warnings">
        No reward-hacking or simulator-failure signals.
      </p>
    );
  }
  const shown = limit ? signals.slice(0, limit) : signals;
  return (
    <ul className="space-y-2">
      {shown.map((s, i) => (
        <li
          key={`${s.kind}-${s.step}-${i}`}
          className="rounded border border-amber-200 bg-amber-50 p-2 text-sm"
          data-testid="signal-warning"
        >
          <div className="font-medium text-amber-900">
            {s.step === null ? "" : `Step ${s.step}: `}
            {s.title}
          </div>
          <div className="text-amber-900/80">{s.detail}</div>
          {s.examples.length > 0 && (
            <div className="mt-1 flex flex-wrap gap-2 text-xs">
              {s.examples.map((id, k) => (
                <Link key={id} href={`/runs/${runId}/trajectories/${id}`} className="text-blue-700 hover:underline">
                  example {k + 1}
                </Link>
              ))}
            </div>
          )}
        </li>
      ))}
      {limit && signals.length > limit && (
        <li className="text-sm">
          <Link href={`/runs/${runId}/signals`} className="text-blue-700 hover:underline">
            All {signals.length} warnings →
          </Link>
        </li>
      )}
    </ul>
  );
}
