"use client";
/**
 * A red banner when the run cannot learn (lib/run-health.ts): shown on the run page and on the Signals page, above
 * everything else, so a flat run is never mistaken for a healthy one.
 */
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import type { HealthProblem } from "@/lib/run-health";

const stepsOf = (p: HealthProblem) =>
  p.firstStep === p.lastStep ? `step ${p.firstStep}` : `steps ${p.firstStep}–${p.lastStep} (${p.steps} of ${p.stepsChecked})`;

export function useRunHealth(runId: string, live = false) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.signals.health.queryOptions({ runId }), refetchInterval: live ? 10_000 : false });
}

export function RunHealthBanner({ runId, live = false }: { runId: string; live?: boolean }) {
  const health = useRunHealth(runId, live);
  const problems = health.data?.problems ?? [];
  if (problems.length === 0) return null;
  const errors = problems.filter((p) => p.severity === "error").length;
  return (
    <section
      role="alert"
      data-testid="run-health-banner"
      className={`rounded border p-3 text-sm ${errors ? "border-red-300 bg-red-50 text-red-900" : "border-amber-300 bg-amber-50 text-amber-900"}`}
    >
      <h2 className="font-semibold">{errors ? "This run is not learning" : "This run may not be learning"}</h2>
      <ul className="mt-2 space-y-2">
        {problems.map((p) => (
          <li key={p.kind} data-testid="run-health-problem" data-kind={p.kind}>
            <span className="font-medium">{p.title}</span> <span className="opacity-70">· {stepsOf(p)}</span>
            <div className="opacity-90">{p.detail}</div>
          </li>
        ))}
      </ul>
    </section>
  );
}
