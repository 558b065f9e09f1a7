"use client";
/**
 * Two trajectories side by side, from any steps or runs (a group page only compares samples of one group): each
 * column is a conversation as the inspector shows it, and the first message where they part is marked in both,
 * with the messages before it folded (lib/conversation-diff: same author, text and tool calls).
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { firstDifference } from "@/lib/conversation-diff";
import type { ConversationMessage } from "@/lib/conversation";
import { MessageCard } from "./message-card";
import { QueryState, RewardValue, TrajectoryStatusBadge } from "./badges";

function useTrajectory(id: string) {
  const trpc = useTRPC();
  const located = useQuery({ ...trpc.trajectories.locate.queryOptions({ id }), enabled: id !== "" });
  const runId = located.data?.runId;
  const t = useQuery({ ...trpc.trajectories.get.queryOptions({ runId: runId ?? "", id }), enabled: Boolean(runId) });
  return { data: t.data, runId, loading: located.isLoading || t.isLoading, error: located.error ?? t.error };
}

/** A trajectory's id from what a reader pastes: the id itself or any URL ending in it. */
export function trajectoryIdFrom(text: string): string {
  const trimmed = text
    .trim()
    .replace(/[?#].*$/, "")
    .replace(/\/+$/, "");
  return trimmed.split("/").pop() ?? "";
}

export function TrajectoryPair({ a, b }: { a: string; b: string }) {
  const left = useTrajectory(a);
  const right = useTrajectory(b);
  const [showShared, setShowShared] = useState(false);
  if (!a || !b) return <PickPair a={a} />;
  if (!left.data || !right.data)
    return <QueryState loading={left.loading || right.loading} error={left.error ?? right.error} what="the two trajectories" />;
  const ca = left.data.conversation as ConversationMessage[];
  const cb = right.data.conversation as ConversationMessage[];
  const diff = firstDifference(ca, cb);
  const from = showShared || diff === null ? 0 : diff;
  return (
    <article className="space-y-4">
      <header className="space-y-1">
        <h1 className="text-xl font-semibold">Two trajectories side by side</h1>
        <p className="text-sm text-slate-600" data-testid="pair-difference">
          {diff === null
            ? "The two conversations are the same, message for message."
            : `They are the same up to message #${diff}, where they part (marked in both).`}
          {diff !== null && diff > 0 && (
            <button type="button" className="ml-2 text-blue-700 underline" onClick={() => setShowShared((v) => !v)}>
              {showShared ? `fold the ${diff} shared messages` : `show the ${diff} shared messages`}
            </button>
          )}
        </p>
      </header>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        {[
          { t: left.data, runId: left.runId!, messages: ca },
          { t: right.data, runId: right.runId!, messages: cb },
        ].map(({ t, runId, messages }, side) => (
          <section key={side} className="min-w-0 space-y-2" data-testid="pair-side">
            <div className="flex flex-wrap items-center gap-2 rounded border border-slate-200 bg-white p-2 text-sm">
              <Link href={`/runs/${runId}/trajectories/${t.id}`} className="font-medium text-blue-700 hover:underline">
                {t.run.name} · step {t.step}
              </Link>
              <span className="font-mono text-xs text-slate-600">{t.taskId}</span>
              <TrajectoryStatusBadge status={t.status} />
              <span>
                reward <RewardValue value={t.reward} />
              </span>
              <span className="text-xs text-slate-600">{t.endReason}</span>
            </div>
            <ol className="space-y-2">
              {messages.map((m, i) =>
                i < from ? null : (
                  <div key={i} data-testid={i === diff ? "first-difference" : undefined} data-index={i}>
                    {i === diff && <p className="mb-1 text-xs font-semibold text-amber-700">first difference: message #{i}</p>}
                    <MessageCard index={i} message={m} calls={[]} highlight={i === diff ? "rounded ring-2 ring-amber-500" : undefined} />
                  </div>
                ),
              )}
              {diff !== null && diff === messages.length && (
                <li className="text-xs text-amber-700" data-testid="first-difference">
                  This conversation ends here (message #{diff}); the other goes on.
                </li>
              )}
            </ol>
          </section>
        ))}
      </div>
    </article>
  );
}

/** Only one id given (the inspector's "Compare with…"): ask for the other. */
function PickPair({ a }: { a: string }) {
  const [other, setOther] = useState("");
  const router = useRouter();
  return (
    <form
      className="space-y-2 text-sm"
      onSubmit={(e) => {
        e.preventDefault();
        const b = trajectoryIdFrom(other);
        if (b) router.push(`/trajectories/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);
      }}
    >
      <h1 className="text-xl font-semibold">Compare two trajectories</h1>
      <label className="flex flex-col gap-1">
        The other trajectory (its id or its page&apos;s URL)
        <input className="rounded border border-slate-300 px-2 py-1" value={other} onChange={(e) => setOther(e.target.value)} />
      </label>
      <button type="submit" className="rounded bg-blue-700 px-3 py-1 text-white">
        Compare
      </button>
    </form>
  );
}
