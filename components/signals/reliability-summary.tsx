"use client";
/** The run's judge noise floor and cross-judge agreement: which reward differences are real. */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { QueryState } from "@/components/trajectories/badges";
import { formatNumber } from "@/lib/format";

export function ReliabilitySummary({ runId, compact }: { runId: string; compact?: boolean }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.signals.reliability.queryOptions({ runId }));
  if (!q.data) return <QueryState loading={q.isLoading} error={q.error} what="judge reliability" />;
  const r = q.data;
  return (
    <div className="space-y-2 text-sm" data-testid="reliability-summary">
      {r.noiseFloor === null ? (
        <p className="text-slate-600">
          Judge noise not measured yet:{" "}
          <Link className="text-blue-700 underline" href={`/runs/${runId}/rescoring`}>
            re-judge some steps with k ≥ 2 judgements
          </Link>
          .
        </p>
      ) : (
        <p data-testid="run-noise-floor">
          Judge noise floor on a step&apos;s mean reward: <strong>±{formatNumber(r.noiseFloor)}</strong> (1σ, {r.perStep} trajectories per
          step, from{" "}
          <Link className="text-blue-700 underline" href={`/runs/${runId}/rescoring/${r.noiseFloorFrom?.id}`}>
            k={r.noiseFloorFrom?.samples} re-judging
          </Link>
          ). Reward differences below ~{formatNumber(2 * r.noiseFloor)} are within judge noise.
        </p>
      )}
      {!compact && r.agreements.length > 0 && (
        <table className="text-sm">
          <thead className="text-left text-xs text-slate-500">
            <tr>
              <th className="pr-4">Judge A</th>
              <th className="pr-4">Judge B</th>
              <th className="pr-4">Trajectories</th>
              <th>Verdict agreement</th>
            </tr>
          </thead>
          <tbody>
            {r.agreements.map((a) => {
              const name = (id: string) => (id === "original" ? "original scoring" : (r.judges.find((j) => j.id === id)?.name ?? id));
              return (
                <tr key={`${a.a}-${a.b}`} className="border-t border-slate-100">
                  <td className="pr-4">{name(a.a)}</td>
                  <td className="pr-4">{name(a.b)}</td>
                  <td className="pr-4">{a.compared}</td>
                  <td>{a.agreementRate === null ? "—" : `${Math.round(a.agreementRate * 1000) / 10}%`}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
