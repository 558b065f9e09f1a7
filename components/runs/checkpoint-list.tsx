"use client";
import { useEffect } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { EvaluateCheckpoint } from "@/components/evaluations/evaluate-checkpoint";

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

/** `evaluable`: each checkpoint offers an evaluation of itself (runs trained here). */
export function CheckpointList({
  runId,
  live,
  progress,
  evaluable,
}: {
  runId: string;
  live: boolean;
  progress: string;
  evaluable?: boolean;
}) {
  const trpc = useTRPC();
  const checkpoints = useQuery({ ...trpc.runActions.checkpoints.queryOptions({ id: runId }), refetchInterval: live ? 10_000 : false });
  const { refetch } = checkpoints;
  useEffect(() => {
    void refetch();
  }, [progress, refetch]);
  return (
    <section>
      <h2 className="mb-2 text-sm font-semibold text-slate-700">Checkpoints</h2>
      {checkpoints.isLoading && <p className="text-xs text-slate-500">Loading…</p>}
      {checkpoints.isError && <p className="text-xs text-red-700">Could not load checkpoints: {checkpoints.error.message}</p>}
      {checkpoints.data?.items.length === 0 && <p className="text-xs text-slate-500">No checkpoints yet.</p>}
      <ul className="space-y-1 text-xs">
        {checkpoints.data?.items.map((c) => (
          <li key={c.id} className="flex gap-3 rounded border border-slate-200 bg-white px-2 py-1">
            <span className="w-16 font-medium">step {c.step}</span>
            <span className="w-20 tabular-nums text-slate-600">{formatBytes(c.sizeBytes)}</span>
            <code className="truncate text-slate-500">{c.location}</code>
            {evaluable && <EvaluateCheckpoint runId={runId} step={c.step} />}
          </li>
        ))}
      </ul>
    </section>
  );
}
