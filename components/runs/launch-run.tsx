"use client";
/** The launch page: the default environment's preset (or a cloned config) in the launch form; on success, go to the new run's page. */
import { useRouter } from "next/navigation";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { DEFAULT_ENVIRONMENT, presetConfig } from "@/lib/environments";
import type { RunConfigInput } from "@/lib/run-config";
import { LaunchForm } from "./launch-form";

export function LaunchRun({ cloneFrom }: { cloneFrom?: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const source = useQuery({ ...trpc.runs.get.queryOptions({ id: cloneFrom ?? "" }), enabled: Boolean(cloneFrom) });
  const create = useMutation(trpc.runActions.create.mutationOptions({ onSuccess: (run) => router.push(`/runs/${run.id}`) }));

  if (cloneFrom && source.isLoading) return <p className="text-sm text-slate-500">Loading the run to clone…</p>;
  if (cloneFrom && source.isError)
    return (
      <p className="text-sm text-red-700">
        Could not load run {cloneFrom}: {source.error.message}
      </p>
    );
  const initial: RunConfigInput = source.data
    ? { ...(source.data.config as RunConfigInput), name: `${source.data.name} (clone)` }
    : presetConfig(DEFAULT_ENVIRONMENT);

  return (
    <section className="space-y-4">
      <h1 className="text-xl font-semibold">{cloneFrom ? "Clone run" : "Launch a run"}</h1>
      <LaunchForm
        key={source.data?.id ?? "new"}
        initial={initial}
        launching={create.isPending}
        serverError={create.error?.message}
        onLaunch={(config, notes) =>
          create.mutate({ config: config as Record<string, unknown>, source: "ui", ...(notes.trim() && { notes }) })
        }
      />
    </section>
  );
}
