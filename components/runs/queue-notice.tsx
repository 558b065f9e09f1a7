"use client";
/** A queued run says why it waits and where it is in the queue (refreshed while it waits). */
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { describeQueueStanding } from "@/lib/run-status";

export function QueueNotice({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const standing = useQuery({ ...trpc.runs.queueStanding.queryOptions({ id: runId }), refetchInterval: 3000 });
  if (!standing.data) return null;
  return (
    <p role="status" data-testid="queue-standing" className="rounded border border-slate-300 bg-slate-50 p-3 text-sm text-slate-800">
      {describeQueueStanding(standing.data)}
    </p>
  );
}
