"use client";
/**
 * A run's duration: fixed once it finished, counting up while it runs. The running case reads the clock only after
 * hydration: the server renders the run page with its data (server/api/prefetch.ts), and a time read during render
 * differs between the server's HTML and the browser's first render by however long the page took to arrive —
 * React's hydration error #418 on a running run's page. A shared one-second ticker re-renders this text alone.
 */
import { useSyncExternalStore } from "react";
import { formatDuration } from "@/lib/format";

let now = Date.now();
let timer: ReturnType<typeof setInterval> | undefined;
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  now = Date.now();
  timer ??= setInterval(() => {
    now = Date.now();
    listeners.forEach((l) => l());
  }, 1000);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** The current time in ms, null on the server and during hydration. */
function useNow(): number | null {
  return useSyncExternalStore(
    subscribe,
    () => now,
    () => null,
  );
}

export function elapsedText(startedAt: Date | null, finishedAt: Date | null, now: number | null): string {
  if (!startedAt) return "—";
  const end = finishedAt?.getTime() ?? now;
  return end === null ? "…" : formatDuration(end - startedAt.getTime());
}

function Running({ startedAt }: { startedAt: Date }) {
  return <>{elapsedText(startedAt, null, useNow())}</>;
}

export function Elapsed({ startedAt, finishedAt }: { startedAt: Date | null; finishedAt: Date | null }) {
  return !startedAt || finishedAt ? <>{elapsedText(startedAt, finishedAt, null)}</> : <Running startedAt={startedAt} />;
}
