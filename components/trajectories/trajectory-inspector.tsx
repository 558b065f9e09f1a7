"use client";
/**
 * One trajectory in full: header facts, reward components, the judge's reasoning, the state diff, and the
 * conversation with the LLM calls behind each message. The browser's filters arrive in the query string, so
 * j/k walk the same order the browser showed.
 */
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo, useState, type ReactNode } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { formatDuration, formatNumber } from "@/lib/format";
import type { LlmCallRecord } from "@/lib/conversation";
import { AdvantageValue, QueryState, RewardValue, TrajectoryStatusBadge } from "./badges";
import { parseBrowserQuery, toBrowserQuery, toFilterInput } from "./browser-query";
import { ConversationList } from "./conversation-list";
import { linkCallsToMessages, summarizeCalls } from "./link-calls";
import { LlmCallView } from "./llm-call-view";
import { PolicyView } from "./policy-view";
import { RewardCard } from "./reward-card";
import { StateDiffView } from "./state-diff-view";
import { useKeyboardNav } from "./use-keyboard-nav";

export function TrajectoryInspector({ runId, trajectoryId }: { runId: string; trajectoryId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const browser = parseBrowserQuery(params);
  const query = toBrowserQuery(browser, { includePage: false });
  const t = useQuery(trpc.trajectories.get.queryOptions({ runId, id: trajectoryId }));
  const nav = useQuery(trpc.trajectories.neighbors.queryOptions({ ...toFilterInput(runId, browser), id: trajectoryId }));

  const hrefFor = useCallback((id: string) => `/runs/${runId}/trajectories/${id}${query ? `?${query}` : ""}`, [runId, query]);
  const prevId = nav.data?.prevId ?? null;
  const nextId = nav.data?.nextId ?? null;
  const goPrev = useMemo(() => (prevId ? () => router.push(hrefFor(prevId)) : null), [prevId, router, hrefFor]);
  const goNext = useMemo(() => (nextId ? () => router.push(hrefFor(nextId)) : null), [nextId, router, hrefFor]);
  useKeyboardNav(goPrev, goNext);

  const linked = useMemo(() => (t.data ? linkCallsToMessages(t.data.conversation, t.data.llmCalls) : null), [t.data]);
  // Calls tied to no message: the training-time judge (shown under its reasoning), re-judging jobs' calls (their own
  // section, grouped by job: they did not happen during training) and the rest.
  const calls3 = useMemo(() => splitUnattached(linked?.unattached ?? []), [linked]);

  if (t.isLoading || t.isError) return <QueryState loading={t.isLoading} error={t.error} what="this trajectory" />;
  const d = t.data!;
  const calls = summarizeCalls(d.llmCalls);
  // A programmatic reward (τ²'s DB / action / communicate checks, BFCL's state check, a game's rules) is not a judge:
  // say "judge" only when an LLM judge was called for this episode.
  const judged = d.llmCalls.some((c) => c.role === "judge" && c.request.params?.rescoringId === undefined);
  const backToList = `/runs/${runId}/trajectories${query ? `?${query}` : ""}`;

  return (
    <article className="space-y-5">
      <nav className="flex flex-wrap items-center gap-2 text-sm">
        <Link href={`/runs/${runId}`} className="truncate text-blue-700 hover:underline">
          {d.run.name}
        </Link>
        <span className="text-slate-400">/</span>
        <Link href={backToList} className="text-blue-700 hover:underline">
          trajectories
        </Link>
        <span className="ml-auto flex items-center gap-2">
          {nav.data?.position != null && (
            <span className="tabular-nums text-slate-500">
              {nav.data.position}
              {nav.data.positionIsLowerBound ? "+" : ""} / {nav.data.total}
              {nav.data.totalIsLowerBound ? "+" : ""}
            </span>
          )}
          <button
            type="button"
            disabled={!goPrev}
            onClick={() => goPrev?.()}
            className="rounded border border-slate-300 px-2 py-1 disabled:opacity-40"
            title="Previous (k or ←)"
          >
            ← prev
          </button>
          <button
            type="button"
            disabled={!goNext}
            onClick={() => goNext?.()}
            className="rounded border border-slate-300 px-2 py-1 disabled:opacity-40"
            title="Next (j or →)"
          >
            next →
          </button>
          <Link
            href={`/trajectories/compare?a=${encodeURIComponent(trajectoryId)}`}
            className="rounded border border-slate-300 px-2 py-1 text-slate-700 hover:bg-slate-50"
          >
            Compare with…
          </Link>
          <ExportButton runId={runId} trajectoryId={trajectoryId} />
        </span>
      </nav>

      <header className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">
          Step {d.step} · group {d.group.indexInStep} · sample {d.indexInGroup}
        </h1>
        <TrajectoryStatusBadge status={d.status} />
        {d.group.dropped && (
          <span className="rounded bg-slate-200 px-2 py-0.5 text-xs" title="DAPO dynamic sampling dropped this group (no reward variance)">
            group dropped
          </span>
        )}
      </header>

      <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-4">
        <Fact label="Reward" value={<RewardValue value={d.reward} />} />
        <Fact label="Advantage" value={<AdvantageValue value={d.advantage} />} />
        <Fact label="Group reward mean ± std" value={`${formatNumber(d.group.rewardMean)} ± ${formatNumber(d.group.rewardStd)}`} />
        <Fact
          label="Task"
          value={
            <Link className="text-blue-700 underline" href={`/runs/${runId}/tasks/${encodeURIComponent(d.taskId)}`}>
              {d.taskId}
            </Link>
          }
        />
        <Fact label="Turns · end" value={`${d.numTurns} · ${d.endReason ?? "—"}`} />
        <Fact label="Tokens (prompt / response)" value={`${d.promptTokens} / ${d.responseTokens}`} />
        <Fact
          label="LLM calls"
          value={`${calls.count} (${calls.failed} failed, ${calls.retries} retries) · ${formatDuration(calls.latencyMs)}${calls.costUsd > 0 ? ` · $${formatNumber(calls.costUsd, 2)}` : ""}`}
        />
        <Fact
          label="Group"
          value={
            <Link className="text-blue-700 underline" href={`/runs/${runId}/groups/${d.group.id}`}>
              compare samples
            </Link>
          }
        />
      </dl>
      {d.error && (
        <p role="alert" className="rounded border border-red-200 bg-red-50 p-3 text-sm text-red-800">
          {d.error}
        </p>
      )}

      <section className="grid gap-4 md:grid-cols-2">
        <RewardCard
          reward={d.reward}
          components={d.rewardComponents}
          formula={d.rewardFormula}
          judged={judged}
          reasoning={d.reasoning}
          judgeCalls={
            calls3.judge.length > 0 && (
              <div className="mt-2 space-y-1" data-testid="judge-calls">
                {calls3.judge.map((c) => (
                  <LlmCallView key={c.id} call={c} />
                ))}
              </div>
            )
          }
        />
        <div className="min-w-0 rounded border border-slate-200 bg-white p-3">
          <h2 className="mb-2 text-sm font-semibold text-slate-700">Final vs expected state</h2>
          <StateDiffView expected={d.expectedState} actual={d.finalState} />
        </div>
      </section>

      {d.hasPolicyTokens && <PolicyView runId={runId} trajectoryId={trajectoryId} endReason={d.endReason} />}

      <section>
        <h2 className="mb-2 text-sm font-semibold text-slate-700">
          Conversation <span className="font-normal text-slate-500">({d.conversation.length} messages; LLM calls beside each)</span>
        </h2>
        <ConversationList messages={d.conversation} callsPerMessage={linked?.perMessage ?? []} />
      </section>

      {calls3.other.length > 0 && (
        <section>
          <h2 className="mb-2 text-sm font-semibold text-slate-700">Other LLM calls</h2>
          <div className="space-y-1">
            {calls3.other.map((c) => (
              <LlmCallView key={c.id} call={c} />
            ))}
          </div>
        </section>
      )}
      {calls3.rescoring.size > 0 && (
        <section data-testid="rejudge-calls">
          <h2 className="mb-2 text-sm font-semibold text-slate-700">
            Re-judging <span className="font-normal text-slate-500">(after training; not part of the reward above)</span>
          </h2>
          {[...calls3.rescoring].map(([rescoringId, list]) => (
            <div key={rescoringId} className="mb-2 space-y-1">
              <Link href={`/runs/${runId}/rescoring/${rescoringId}`} className="text-xs text-blue-700 underline">
                re-scoring {rescoringId}
              </Link>
              {list.map((c) => (
                <LlmCallView key={c.id} call={c} />
              ))}
            </div>
          ))}
        </section>
      )}
      <p className="text-xs text-slate-400">Keys: j / → next, k / ← previous (in the browser&apos;s current order).</p>
    </article>
  );
}

/** Unattached calls split three ways: training-time judge, re-judging jobs (by job id), the rest. */
function splitUnattached<C extends Pick<LlmCallRecord, "role" | "request">>(
  calls: C[],
): { judge: C[]; rescoring: Map<string, C[]>; other: C[] } {
  const out = { judge: [] as C[], rescoring: new Map<string, C[]>(), other: [] as C[] };
  for (const c of calls) {
    const rescoringId = c.request.params?.rescoringId;
    if (typeof rescoringId === "string") out.rescoring.set(rescoringId, [...(out.rescoring.get(rescoringId) ?? []), c]);
    else if (c.role === "judge") out.judge.push(c);
    else out.other.push(c);
  }
  return out;
}

function Fact({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div className="rounded border border-slate-200 bg-white px-3 py-2">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="truncate">{value}</dd>
    </div>
  );
}

/** Downloads the Simia-RL training record (lib/simia-record.ts) as a JSON file. */
function ExportButton({ runId, trajectoryId }: { runId: string; trajectoryId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    setError(null);
    try {
      const record = await queryClient.fetchQuery(trpc.trajectories.exportSimia.queryOptions({ runId, id: trajectoryId }));
      const url = URL.createObjectURL(new Blob([JSON.stringify(record, null, 2)], { type: "application/json" }));
      const a = Object.assign(document.createElement("a"), { href: url, download: `trajectory-${trajectoryId}.simia.json` });
      a.click();
      URL.revokeObjectURL(url);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <>
      <button type="button" onClick={download} className="rounded bg-slate-800 px-2 py-1 text-white hover:bg-slate-900">
        Export (Simia-RL JSON)
      </button>
      {error && <span className="text-xs text-red-700">{error}</span>}
    </>
  );
}
