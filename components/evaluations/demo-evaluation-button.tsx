"use client";
/**
 * The demo's one-click evaluation: τ² retail's built-in tasks played by the built-in scripted agent, which replays
 * each task's gold actions (offline, not a model), so a newcomer sees a capable agent's trajectories in seconds.
 */
import { useRouter } from "next/navigation";
import { useMutation } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";

export function DemoEvaluationButton() {
  const trpc = useTRPC();
  const router = useRouter();
  const demo = useMutation(trpc.evaluations.demo.mutationOptions({ onSuccess: (run) => router.push(`/runs/${run.id}`) }));
  return (
    <span className="inline-flex flex-col items-end">
      <button
        type="button"
        onClick={() => demo.mutate({})}
        disabled={demo.isPending}
        className="rounded border border-amber-600 px-3 py-1.5 text-sm font-medium text-amber-800 hover:bg-amber-50 disabled:opacity-50"
        title="Plays τ² retail's built-in tasks with the tasks' gold actions replayed by a script (offline; not a model)."
        data-testid="demo-evaluation"
      >
        {demo.isPending ? "Queueing…" : "Try an evaluation (gold actions replayed, not a model)"}
      </button>
      {demo.error && <span className="text-xs text-red-700">{demo.error.message}</span>}
    </span>
  );
}
