"use client";
/** A run's re-scoring jobs with live progress (polled while any is queued or running). */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { QueryState } from "@/components/trajectories/badges";
import { ProgressBar } from "@/components/runs/progress-bar";

export function RescoringList({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const jobs = useQuery({
    ...trpc.rescoring.list.queryOptions({ runId }),
    refetchInterval: (q) => (q.state.data?.some((j) => j.status === "queued" || j.status === "running") ? 1500 : false),
  });
  if (!jobs.data) return <QueryState loading={jobs.isLoading} error={jobs.error} what="re-scoring jobs" />;
  if (jobs.data.length === 0) return <p className="text-sm text-slate-500">No re-scoring jobs yet.</p>;
  return (
    <table className="w-full text-sm">
      <thead className="text-left text-xs text-slate-500">
        <tr>
          <th className="py-1">Job</th>
          <th>Selection</th>
          <th>Status</th>
          <th>Progress</th>
          <th>Created</th>
        </tr>
      </thead>
      <tbody>
        {jobs.data.map((j) => (
          <tr key={j.id} className="border-t border-slate-100" data-testid="rescoring-row">
            <td className="py-1.5">
              <Link className="text-blue-700 hover:underline" href={`/runs/${runId}/rescoring/${j.id}`}>
                {j.name}
              </Link>
            </td>
            <td>{j.selectionLabel}</td>
            <td>
              {j.status}
              {j.error ? `: ${j.error}` : ""}
            </td>
            <td>
              <ProgressBar done={j.done} total={j.total} />
            </td>
            <td className="text-xs text-slate-500">{j.createdAt.toLocaleString()}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
