"use client";
import { useEffect, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";

const LEVEL_STYLE: Record<string, string> = {
  debug: "text-slate-400",
  info: "text-slate-700",
  warn: "text-amber-700",
  error: "text-red-700",
};

export function EventLog({ runId, live, progress }: { runId: string; live: boolean; progress: string }) {
  const trpc = useTRPC();
  const [minLevel, setMinLevel] = useState<"debug" | "info" | "warn" | "error">("info");
  const events = useQuery({ ...trpc.runs.events.queryOptions({ id: runId, minLevel, limit: 200 }), refetchInterval: live ? 3000 : false });
  const { refetch } = events;
  useEffect(() => {
    void refetch();
  }, [progress, refetch]);
  return (
    <section>
      <div className="mb-2 flex items-center gap-3">
        <h2 className="mr-auto text-sm font-semibold text-slate-700">Event log</h2>
        <select
          aria-label="Minimum level"
          className="rounded border border-slate-300 px-2 py-1 text-xs"
          value={minLevel}
          onChange={(e) => setMinLevel(e.target.value as typeof minLevel)}
        >
          {["debug", "info", "warn", "error"].map((l) => (
            <option key={l}>{l}</option>
          ))}
        </select>
      </div>
      {events.isLoading && <p className="text-xs text-slate-500">Loading events…</p>}
      {events.isError && <p className="text-xs text-red-700">Could not load events: {events.error.message}</p>}
      {events.data?.items.length === 0 && <p className="text-xs text-slate-500">No events at this level.</p>}
      <ol className="max-h-72 overflow-auto rounded border border-slate-200 bg-white font-mono text-xs" data-testid="event-log">
        {events.data?.items.map((e) => (
          <li key={e.id} className="flex gap-3 border-b border-slate-100 px-2 py-1">
            <time className="shrink-0 text-slate-400">{e.createdAt.toLocaleTimeString()}</time>
            <span className={`w-10 shrink-0 uppercase ${LEVEL_STYLE[e.level]}`}>{e.level}</span>
            {e.step !== null && <span className="shrink-0 text-slate-400">step {e.step}</span>}
            <span className={LEVEL_STYLE[e.level]}>{e.message}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
