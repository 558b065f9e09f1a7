"use client";
/** The run's reward-debugging page: warnings per step, judge reliability, per-component analysis. */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { QueryState } from "@/components/trajectories/badges";
import { ComponentAnalysis } from "./component-analysis";
import { ReliabilitySummary } from "./reliability-summary";
import { RunHealthBanner, useRunHealth } from "./run-health-banner";
import { WarningList } from "./warning-list";

export function SignalsView({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const warnings = useQuery(trpc.signals.warnings.queryOptions({ runId }));
  const health = useRunHealth(runId);
  return (
    <article className="space-y-6">
      <header>
        <Link href={`/runs/${runId}`} className="text-sm text-blue-700 hover:underline">
          ← Run
        </Link>
        <h1 className="text-xl font-semibold">Reward signals</h1>
        <p className="text-sm text-slate-600">
          Is a rising reward a better policy, a noisy judge, a failing simulator or a policy pleasing the judge?
        </p>
      </header>
      <RunHealthBanner runId={runId} />
      <section>
        <h2 className="mb-2 text-sm font-semibold text-slate-700">Judge reliability</h2>
        <ReliabilitySummary runId={runId} />
      </section>
      <section>
        <h2 className="mb-2 text-sm font-semibold text-slate-700">
          Warnings
          {warnings.data
            ? ` (${warnings.data.total.toLocaleString("en-US")} in ${warnings.data.groups.length} ${warnings.data.groups.length === 1 ? "kind" : "kinds"}, from ${warnings.data.trajectoriesAnalysed.toLocaleString("en-US")} trajectories${warnings.data.truncated ? ", most recent only" : ""})`
            : ""}
        </h2>
        {warnings.data ? (
          <WarningList runId={runId} groups={warnings.data.groups} notLearning={(health.data?.problems.length ?? 0) > 0} />
        ) : (
          <QueryState loading={warnings.isLoading} error={warnings.error} what="reward signals" />
        )}
      </section>
      <section>
        <h2 className="mb-2 text-sm font-semibold text-slate-700">Reward components</h2>
        <ComponentAnalysis runId={runId} />
      </section>
    </article>
  );
}
