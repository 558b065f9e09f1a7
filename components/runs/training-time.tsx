"use client";
/** Seconds the run spent training (server/services/runs.ts getRunTrainingSeconds), refreshed as steps are recorded. */
import { useEffect } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { formatDuration } from "@/lib/format";

export function TrainingTime({ runId, progress }: { runId: string; progress: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.runs.trainingSeconds.queryOptions({ id: runId }));
  const { refetch } = q;
  // A new step (or status) refetches; an idle page does not poll.
  useEffect(() => {
    void refetch();
  }, [progress, refetch]);
  const seconds = q.data;
  return <span data-testid="training-time">{seconds === null || seconds === undefined ? "—" : formatDuration(seconds * 1000)}</span>;
}
