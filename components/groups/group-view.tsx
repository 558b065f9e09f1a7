"use client";
/**
 * All samples of one GRPO group side by side, best reward first. Messages the whole group shares are muted, the
 * point where a sample leaves the others is marked, and from where it is on its own it is highlighted: that is
 * the behaviour its advantage rewards or punishes.
 */
import Link from "next/link";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { formatNumber } from "@/lib/format";
import { AdvantageValue, QueryState, RewardValue, SourceBadge, TrajectoryStatusBadge } from "@/components/trajectories/badges";
import { prettyContent } from "@/components/trajectories/message-card";
import { sharedState, type SharedState } from "./divergence";

const SHARED_STYLE: Record<SharedState, string> = {
  all: "border-slate-200 bg-slate-50 text-slate-500",
  some: "border-amber-200 bg-amber-50",
  unique: "border-blue-300 bg-white ring-1 ring-blue-200",
};

export function GroupView({ runId, groupId }: { runId: string; groupId: string }) {
  const trpc = useTRPC();
  const g = useQuery(trpc.groups.get.queryOptions({ runId, groupId }));
  const [hideShared, setHideShared] = useState(true);
  if (g.isLoading || g.isError) return <QueryState loading={g.isLoading} error={g.error} what="this group" />;
  const d = g.data!;
  // When every sample is identical there is nothing after the shared part: show the conversation instead.
  const allSame = d.samples.length > 1 && d.samples.every((s) => s.divergesAt === null);
  const skip = hideShared && !allSame ? d.sharedPrefix : 0;

  return (
    <article className="space-y-4">
      <nav className="flex flex-wrap gap-2 text-sm">
        <Link href={`/runs/${runId}`} className="text-blue-700 hover:underline">
          run
        </Link>
        <span className="text-slate-400">/</span>
        <Link href={`/runs/${runId}/groups`} className="text-blue-700 hover:underline">
          groups
        </Link>
      </nav>
      <header className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">
          Step {d.step} · group {d.indexInStep}
          {d.split !== "train" && <span className="text-slate-500"> ({d.split})</span>}
        </h1>
        <Link className="text-sm text-blue-700 hover:underline" href={`/runs/${runId}/tasks/${encodeURIComponent(d.taskId)}`}>
          {d.taskId}
        </Link>
        <span className="text-sm text-slate-600">
          reward {formatNumber(d.rewardMean)} ± {formatNumber(d.rewardStd)}
        </span>
        {d.dropped && <span className="rounded bg-slate-200 px-2 py-0.5 text-xs">dropped (no reward variance)</span>}
        <label className="ml-auto flex items-center gap-1 text-sm">
          <input type="checkbox" checked={hideShared} onChange={(e) => setHideShared(e.target.checked)} />
          hide the {d.sharedPrefix} messages all samples share
        </label>
      </header>
      <Legend />
      {allSame && (
        <p className="text-sm text-amber-800">All {d.samples.length} samples are identical: GRPO gets no signal from this group.</p>
      )}
      {d.samples.length === 0 ? (
        <p className="text-sm text-slate-500">This group has no samples recorded.</p>
      ) : (
        // One column per sample, sharing the width: a group of 8 fits a 1440 px screen, so an outlier is never
        // off-screen; very large groups scroll sideways rather than shrink columns below ~150 px.
        <div
          className="grid gap-2 relative overflow-x-auto pb-2"
          style={{ gridTemplateColumns: `repeat(${d.samples.length}, minmax(9.5rem, 1fr))` }}
          data-testid="group-columns"
        >
          {d.samples.map((s, rank) => (
            <section key={s.id} className="min-w-0 space-y-2" data-testid="group-sample">
              <div className="rounded border border-slate-200 bg-white p-2 text-sm">
                <div className="flex items-center gap-2">
                  <span className="font-semibold">#{rank + 1}</span>
                  <Link href={`/runs/${runId}/trajectories/${s.id}`} className="text-blue-700 hover:underline">
                    sample {s.indexInGroup}
                  </Link>
                  <TrajectoryStatusBadge status={s.status} />
                </div>
                <div className="mt-1 flex flex-wrap gap-3 text-xs">
                  <span>
                    reward <RewardValue value={s.reward} />
                  </span>
                  <span>
                    adv <AdvantageValue value={s.advantage} />
                  </span>
                  <span>{s.numTurns} turns</span>
                  <span className="text-slate-500">{s.divergesAt === null ? "same as all others" : `diverges at #${s.divergesAt}`}</span>
                </div>
                {Object.keys(s.rewardComponents).length > 0 && (
                  <dl className="mt-1 flex flex-wrap gap-x-2 text-[11px] text-slate-600" data-testid="sample-components">
                    {Object.entries(s.rewardComponents).map(([k, v]) => (
                      <div key={k} className="flex gap-1">
                        <dt className="font-mono">{k}</dt>
                        <dd>
                          <RewardValue value={v} />
                        </dd>
                      </div>
                    ))}
                  </dl>
                )}
                {s.reasoning && (
                  <p className="mt-1 line-clamp-3 text-xs text-slate-600" title={s.reasoning}>
                    {s.reasoning}
                  </p>
                )}
              </div>
              {skip > 0 && <p className="text-center text-xs text-slate-400">… {skip} shared messages hidden …</p>}
              <ol className="space-y-1">
                {s.conversation.slice(skip).map((m, j) => {
                  const i = j + skip;
                  const state = sharedState(i, s);
                  const content = prettyContent(m.content);
                  return (
                    <li key={i} style={{ contentVisibility: "auto", containIntrinsicSize: "auto 80px" }}>
                      {i === s.divergesAt && (
                        <div className="mb-1 border-t-2 border-dashed border-amber-500 text-[10px] text-amber-700">diverges here</div>
                      )}
                      <div className={`rounded border p-2 text-xs ${SHARED_STYLE[state]}`} data-shared={state}>
                        <div className="mb-1 flex items-center gap-2">
                          <SourceBadge source={m.source} />
                          <span className="text-slate-400">
                            #{i} · turn {m.turn}
                          </span>
                          {m.advantage !== undefined && (
                            <span className="ml-auto">
                              adv <AdvantageValue value={m.advantage} />
                            </span>
                          )}
                        </div>
                        {m.content && (
                          <pre
                            className={`max-h-48 overflow-auto whitespace-pre-wrap break-words ${content.json ? "font-mono" : "font-sans"}`}
                            tabIndex={0}
                          >
                            {content.text}
                          </pre>
                        )}
                        {m.toolCalls?.map((c) => (
                          <pre
                            key={c.id}
                            className="mt-1 overflow-x-auto rounded bg-slate-900 p-1 font-mono text-[11px] text-slate-100"
                            tabIndex={0}
                          >
                            {c.name}({JSON.stringify(c.arguments)})
                          </pre>
                        ))}
                      </div>
                    </li>
                  );
                })}
              </ol>
              {s.divergesAt !== null && s.divergesAt >= s.conversation.length && (
                <p className="text-xs text-amber-700">Ends here while others continue.</p>
              )}
            </section>
          ))}
        </div>
      )}
    </article>
  );
}

function Legend() {
  return (
    <p className="flex flex-wrap gap-3 text-xs text-slate-600">
      <span className={`rounded border px-1 ${SHARED_STYLE.all}`}>shared by all samples</span>
      <span className={`rounded border px-1 ${SHARED_STYLE.some}`}>shared with some</span>
      <span className={`rounded border px-1 ${SHARED_STYLE.unique}`}>unique to this sample</span>
    </p>
  );
}
