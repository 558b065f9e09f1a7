"use client";
/**
 * Cancel / resume / clone on the run page. Cancel of a running run takes effect at the trainer's next step. A run
 * trained by another system and imported says where it came from; while it is running or stale it can be cancelled
 * (its client's further data is then refused), and only its client resumes it.
 */
import Link from "next/link";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";

export function RunActions({ run }: { run: { id: string; status: string; cancelRequested: boolean; source: string } }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.runs.get.queryKey({ id: run.id }) });
  const cancel = useMutation(trpc.runActions.cancel.mutationOptions({ onSuccess: refresh }));
  const resume = useMutation(trpc.runActions.resume.mutationOptions({ onSuccess: refresh }));
  const canCancel = (run.status === "queued" || run.status === "running") && !run.cancelRequested;
  const canResume = run.status === "cancelled" || run.status === "failed";
  const error = cancel.error ?? resume.error;
  if (run.source !== "rollout-lab") {
    const live = run.status === "running" || run.status === "stale";
    return (
      <div className="flex items-center gap-2 text-sm">
        <span
          className="rounded bg-violet-100 px-2 py-1 text-xs text-violet-800"
          title="Streamed or imported through the ingest API; training happened elsewhere."
        >
          Imported from {run.source}
        </span>
        {live && (
          <button
            type="button"
            className="rounded border border-red-300 bg-white px-3 py-1 text-red-700 hover:bg-red-50 disabled:opacity-50"
            disabled={cancel.isPending}
            onClick={() => {
              if (window.confirm(`Cancel this run? ${run.source} keeps training if it still runs; what it sends from now on is refused.`))
                cancel.mutate({ id: run.id });
            }}
          >
            Cancel
          </button>
        )}
        {error && <span className="text-xs text-red-700">{error.message}</span>}
      </div>
    );
  }
  return (
    <div className="flex items-center gap-2 text-sm">
      {canCancel && (
        <button
          type="button"
          className="rounded border border-red-300 bg-white px-3 py-1 text-red-700 hover:bg-red-50 disabled:opacity-50"
          disabled={cancel.isPending}
          onClick={() => {
            // A running run stops after its current step; asking first avoids losing a long run to a stray click.
            if (
              window.confirm(
                run.status === "running"
                  ? "Cancel this run? It stops after the current step (checkpointed; you can resume it)."
                  : "Cancel this queued run?",
              )
            )
              cancel.mutate({ id: run.id });
          }}
        >
          Cancel
        </button>
      )}
      {canResume && (
        <button
          type="button"
          className="rounded border border-slate-300 bg-white px-3 py-1 hover:bg-slate-50 disabled:opacity-50"
          disabled={resume.isPending}
          onClick={() => resume.mutate({ id: run.id })}
        >
          Resume
        </button>
      )}
      <Link href={`/runs/new?from=${run.id}`} className="rounded border border-slate-300 bg-white px-3 py-1 hover:bg-slate-50">
        Clone
      </Link>
      {error && <span className="text-xs text-red-700">{error.message}</span>}
    </div>
  );
}
