"use client";
/** On the run page: the judge's noise floor and the top reward-hacking / simulator warnings, linking to details. */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { QueryState } from "@/components/trajectories/badges";
import { ReliabilitySummary } from "./reliability-summary";
import { WarningList } from "./warning-list";
import { useRunHealth } from "./run-health-banner";

export function RewardHealthPanel({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const warnings = useQuery(trpc.signals.warnings.queryOptions({ runId }));
  const health = useRunHealth(runId);
  return (
    <section className="space-y-3 rounded border border-slate-200 bg-white p-4" data-testid="reward-health">
      <div className="flex items-center gap-4">
        <h2 className="text-sm font-semibold text-slate-700">Reward health</h2>
        <Link href={`/runs/${runId}/signals`} className="text-sm text-blue-700 hover:underline">
          Signals &amp; components
        </Link>
        <Link href={`/runs/${runId}/rescoring`} className="text-sm text-blue-700 hover:underline">
          Re-judge
        </Link>
      </div>
      <ReliabilitySummary runId={runId} compact />
      {warnings.data ? (
        <WarningList runId={runId} groups={warnings.data.groups} limit={3} notLearning={(health.data?.problems.length ?? 0) > 0} />
      ) : (
        <QueryState loading={warnings.isLoading} error={warnings.error} what="reward signals" />
      )}
    </section>
  );
}
