"use client";
/** "Evaluate" on a checkpoint: an evaluation run of that checkpoint on the run's own environment and tasks. */
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";

export function EvaluateCheckpoint({ runId, step }: { runId: string; step: number }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [k, setK] = useState(4);
  const create = useMutation(trpc.evaluations.evaluateCheckpoint.mutationOptions({ onSuccess: (run) => router.push(`/runs/${run.id}`) }));
  return (
    <span className="ml-auto inline-flex items-center gap-1">
      <label className="text-slate-500">
        k{" "}
        <input
          type="number"
          min={1}
          max={64}
          value={k}
          onChange={(e) => setK(Math.max(1, Math.min(64, Number(e.target.value) || 1)))}
          className="w-12 rounded border border-slate-300 px-1"
          aria-label={`trials per task for step ${step}`}
        />
      </label>
      <button
        type="button"
        className="rounded border border-blue-700 px-2 text-blue-700 hover:bg-blue-50 disabled:opacity-50"
        disabled={create.isPending}
        onClick={() => create.mutate({ runId, step, k, source: "ui" })}
        title="Play every task of this run's environment k times with this checkpoint; nothing is trained."
      >
        Evaluate
      </button>
      {create.error && <span className="text-red-700">{create.error.message}</span>}
    </span>
  );
}
