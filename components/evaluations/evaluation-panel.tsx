"use client";
/**
 * An evaluation run's scores on its page, as τ²-bench reports them: pass@1, pass^1..k and the mean reward over every
 * task, then one row per task (trials, successes, mean reward, pass^k, cost) linking to that task's trajectories.
 */
import Link from "next/link";
import { useEffect } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { UNSCORED_CAUSE_TEXT, type UnscoredCause } from "@/lib/unscored-cause";
import { PolicyLabel, Score, usd } from "./scores";

export function EvaluationPanel({
  runId,
  environment,
  live,
  progress,
}: {
  runId: string;
  environment: string;
  live: boolean;
  progress: string;
}) {
  const trpc = useTRPC();
  const view = useQuery({ ...trpc.evaluations.get.queryOptions({ runId }), refetchInterval: live ? 5000 : false });
  const { refetch } = view;
  useEffect(() => {
    void refetch();
  }, [progress, refetch]);
  if (view.isLoading) return <p className="text-sm text-slate-500">Loading the scores…</p>;
  if (view.isError) return <p className="text-sm text-red-700">Could not load the scores: {view.error.message}</p>;
  const v = view.data!;
  const s = v.summary;
  const ks = Array.from({ length: s.maxK }, (_, i) => i + 1);
  return (
    <section className="space-y-3 rounded border border-slate-200 bg-white p-4" data-testid="evaluation">
      <header className="flex flex-wrap items-baseline gap-x-4 gap-y-1">
        <h2 className="text-sm font-semibold text-slate-700">Evaluation</h2>
        <PolicyLabel label={v.policy} kind={v.policyKind} />
        <span className="text-xs text-slate-500">
          {v.k} trial{v.k === 1 ? "" : "s"} per task · {v.taskSet?.label}
        </span>
        <Link href={`/environments/${encodeURIComponent(environment)}`} className="ml-auto text-xs text-blue-700 hover:underline">
          All evaluations of {environment} →
        </Link>
      </header>
      <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-5" data-testid="evaluation-overall">
        <Fact label="pass@1" value={<Score value={s.passHat[1]} />} />
        <Fact label={`pass^${s.maxK || "k"}`} value={<Score value={s.passHat[s.maxK]} />} />
        <Fact label="mean reward" value={<Score value={s.rewardMean} />} />
        <Fact label="tasks × trials" value={`${s.tasks} · ${s.trials}${s.unscored ? ` (+${s.unscored} not scored)` : ""}`} />
        <Fact label="cost" value={usd(s.costUsd)} />
      </dl>
      <p className="text-xs text-slate-600" data-testid="success-rule">
        A trial succeeds when {s.successRule}. pass@k and pass^k count these successes; the mean reward is the environment&apos;s shaped
        reward.
      </p>
      {s.maxK > 1 && (
        <p className="text-xs text-slate-600">
          {ks.map((k) => (
            <span key={k} className="mr-3">
              pass^{k} <Score value={s.passHat[k]} />
            </span>
          ))}
          <span className="text-slate-400">(τ²-bench: the chance that k trials of a task all succeed, averaged over tasks)</span>
        </p>
      )}
      {Object.keys(s.components).length > 0 && (
        <p className="text-xs text-slate-600" data-testid="evaluation-components">
          reward components (mean over scored trials):{" "}
          {Object.entries(s.components).map(([name, value]) => (
            <span key={name} className="mr-3 font-mono">
              {name} <Score value={value} />
            </span>
          ))}
        </p>
      )}
      {s.unscored > 0 && (
        <div className="text-xs text-amber-800" data-testid="unscored-causes">
          <p>
            {s.unscored} trial(s) could not be scored: left out of every score, never counted as 0. Each trajectory shows its own reason.
          </p>
          <ul className="ml-4 list-disc">
            {(Object.entries(s.unscoredCauses) as [UnscoredCause, number][]).map(([cause, n]) => (
              <li key={cause}>
                {n} × {UNSCORED_CAUSE_TEXT[cause]}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="max-h-[32rem] overflow-auto">
        <table className="w-full text-left text-xs" data-testid="evaluation-tasks">
          <thead className="sticky top-0 bg-slate-50 text-slate-500">
            <tr>
              <th className="px-2 py-1">task</th>
              <th className="px-2 py-1">trials</th>
              <th className="px-2 py-1">successes</th>
              <th className="px-2 py-1">mean reward</th>
              <th className="px-2 py-1">pass^{s.maxK || "k"}</th>
              <th className="px-2 py-1">cost</th>
            </tr>
          </thead>
          <tbody>
            {s.perTask.map((t) => (
              <tr key={t.taskId} className="border-t border-slate-100">
                <td className="px-2 py-1">
                  <Link
                    href={`/runs/${runId}/trajectories?task=${encodeURIComponent(t.taskId)}`}
                    className="font-mono text-blue-700 hover:underline"
                  >
                    {t.taskId}
                  </Link>
                </td>
                <td className="px-2 py-1 tabular-nums">
                  {t.trials}
                  {t.unscored ? <span className="text-amber-700"> +{t.unscored}</span> : null}
                </td>
                <td
                  className={`px-2 py-1 tabular-nums ${t.successes === t.trials ? "text-emerald-700" : t.successes === 0 ? "text-red-700" : ""}`}
                >
                  {t.successes}
                </td>
                <td className="px-2 py-1">
                  <Score value={t.rewardMean} />
                </td>
                <td className="px-2 py-1">
                  <Score value={t.passHat[s.maxK - 1]} />
                </td>
                <td className="px-2 py-1 tabular-nums">{usd(t.costUsd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {s.perTask.length === 0 && <p className="p-2 text-xs text-slate-500">No task finished yet.</p>}
      </div>
    </section>
  );
}

function Fact({ label, value }: { label: string; value: React.ReactNode }) {
  return (
    <div className="rounded border border-slate-200 px-3 py-2">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="text-base">{value}</dd>
    </div>
  );
}
