"use client";
/**
 * Reward-hacking / simulator-failure warnings, one entry per kind (lib/signal-groups.ts): how many steps it fired
 * on, those steps as ranges, and its latest instances with links to example trajectories.
 */
import Link from "next/link";
import { formatStepRanges, type SignalGroup } from "@/lib/signal-groups";

/** `notLearning`: the run has health problems, so "no warnings" must not read as an all-clear. */
export function WarningList({
  runId,
  groups,
  limit,
  notLearning = false,
}: {
  runId: string;
  groups: SignalGroup[];
  /** Kinds shown (the run page's summary); the rest are behind a link to the signals page. */
  limit?: number;
  notLearning?: boolean;
}) {
  if (groups.length === 0) {
    return notLearning ? (
      <p className="text-sm text-slate-600" data-testid="no-warnings">
        No reward-hacking signals, which means little here: the run is not learning (see above).
      </p>
    ) : (
      <p className="text-sm text-emerald-800" data-testid="no-warnings">
        No reward-hacking or simulator-failure signals.
      </p>
    );
  }
  const shown = limit ? groups.slice(0, limit) : groups;
  return (
    <ul className="space-y-2">
      {shown.map((g) => (
        <li
          key={g.kind}
          className="rounded border border-amber-200 bg-amber-50 p-2 text-sm"
          data-testid="signal-warning"
          data-kind={g.kind}
        >
          <div className="font-medium text-amber-950">
            {g.title}
            {g.count > 1 && <span className="font-normal"> — {g.count.toLocaleString("en-US")} steps</span>}
          </div>
          {g.stepRanges.length > 0 && (
            <div className="text-xs text-amber-950" data-testid="signal-steps">
              {g.stepRanges.length === 1 && g.stepRanges[0][0] === g.stepRanges[0][1] ? "Step " : "Steps "}
              {g.rangesOmitted > 0 && `${g.rangesOmitted.toLocaleString("en-US")} earlier ranges, then `}
              {formatStepRanges(g.stepRanges)}
            </div>
          )}
          <ul className="mt-1 space-y-1">
            {g.latest.map((s) => (
              <li key={`${s.step}`} className="text-amber-950">
                {s.step !== null && g.count > 1 && <span className="font-medium">Step {s.step.toLocaleString("en-US")}: </span>}
                {s.detail}
                {s.examples.length > 0 && (
                  <span className="ml-2 inline-flex flex-wrap gap-2 text-xs">
                    {s.examples.map((id, k) => (
                      <Link key={id} href={`/runs/${runId}/trajectories/${id}`} className="text-blue-800 underline">
                        example {k + 1}
                      </Link>
                    ))}
                  </span>
                )}
              </li>
            ))}
            {g.count > g.latest.length && (
              <li className="text-xs text-amber-950">
                and {(g.count - g.latest.length).toLocaleString("en-US")} earlier {g.count - g.latest.length === 1 ? "step" : "steps"}
              </li>
            )}
          </ul>
        </li>
      ))}
      {limit && groups.length > limit && (
        <li className="text-sm">
          <Link href={`/runs/${runId}/signals`} className="text-blue-800 underline">
            All {groups.length} kinds of warning →
          </Link>
        </li>
      )}
    </ul>
  );
}
