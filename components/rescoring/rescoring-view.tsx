"use client";
/**
 * One re-scoring job: progress while it runs; then agreement with the original scoring, the flipped verdicts with
 * both judges' reasoning side by side, what each group's advantages would have been, and the judge's own noise
 * when it judged each trajectory k times.
 */
import Link from "next/link";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { AdvantageValue, QueryState, RewardValue } from "@/components/trajectories/badges";
import { ProgressBar } from "@/components/runs/progress-bar";
import { formatNumber } from "@/lib/format";

const FLIP_LABEL: Record<string, string> = {
  pass_to_fail: "pass → fail",
  fail_to_pass: "fail → pass",
  became_unscored: "now unscored",
  became_scored: "now scored",
};

function pct(v: number | null | undefined): string {
  return v === null || v === undefined ? "—" : `${Math.round(v * 1000) / 10}%`;
}

function Figure({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div className="rounded border border-slate-200 bg-white px-3 py-2" data-testid={testId}>
      <div className="text-xs text-slate-500">{label}</div>
      <div className="tabular-nums">{value}</div>
    </div>
  );
}

export function RescoringView({ runId, rescoringId }: { runId: string; rescoringId: string }) {
  const trpc = useTRPC();
  const [onlyFlipped, setOnlyFlipped] = useState(false);
  const q = useQuery({
    ...trpc.rescoring.get.queryOptions({ runId, rescoringId, onlyFlipped }),
    refetchInterval: (s) =>
      s.state.data && (s.state.data.job.status === "queued" || s.state.data.job.status === "running") ? 1500 : false,
  });
  if (!q.data) return <QueryState loading={q.isLoading} error={q.error} what="the re-scoring" />;
  const { job, comparison, reliability, rows } = q.data;
  const finished = job.status === "succeeded";
  const flipped = rows.filter((r) => r.flip === "pass_to_fail" || r.flip === "fail_to_pass");

  return (
    <article className="space-y-6">
      <header className="space-y-1">
        <Link href={`/runs/${runId}/rescoring`} className="text-sm text-blue-700 hover:underline">
          ← Re-scoring jobs
        </Link>
        <h1 className="text-xl font-semibold">{job.name}</h1>
        <p className="text-sm text-slate-600">
          {job.scorerLabel} · {job.selectionLabel} · run {job.runName}
        </p>
        <div className="flex items-center gap-3 text-sm">
          <span data-testid="rescoring-status">{job.status}</span>
          <ProgressBar done={job.done} total={job.total} />
          {job.unscored > 0 && <span className="text-amber-700">{job.unscored} unscored by the new judge</span>}
        </div>
        {job.error && (
          <p role="alert" className="rounded border border-red-200 bg-red-50 p-3 text-sm text-red-800">
            {job.error}
          </p>
        )}
        {job.status === "queued" && <p className="text-sm text-slate-500">Waiting for a trainer worker to pick the job up…</p>}
      </header>

      <section className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-4">
        <Figure label="Verdict agreement" value={`${pct(comparison.agreementRate)} of ${comparison.compared}`} testId="agreement-rate" />
        <Figure
          label="Flipped"
          value={`${comparison.flippedToFail} pass→fail · ${comparison.flippedToPass} fail→pass`}
          testId="flip-count"
        />
        <Figure label="Mean reward (original → new)" value={`${formatNumber(comparison.meanOld)} → ${formatNumber(comparison.meanNew)}`} />
        <Figure label="Mean |Δ reward|" value={formatNumber(comparison.meanAbsDelta)} />
        {reliability.trajectories > 0 && (
          <>
            <Figure
              label={`Self-agreement over k=${reliability.samplesPerTrajectory}`}
              value={pct(reliability.meanAgreement)}
              testId="self-agreement"
            />
            <Figure label="Mean reward std per trajectory" value={formatNumber(reliability.meanStd)} />
            <Figure label="Trajectories with mixed verdicts" value={pct(reliability.unstableShare)} />
            <Figure
              label={`Noise floor on a step mean (n=${reliability.perStep})`}
              value={`±${formatNumber(reliability.noiseFloor)}`}
              testId="noise-floor"
            />
          </>
        )}
      </section>

      {finished && flipped.length > 0 && (
        <section className="space-y-3">
          <h2 className="text-sm font-semibold text-slate-700">Flipped verdicts — why each judge decided</h2>
          {flipped.map((r) => (
            <div key={r.trajectoryId} className="rounded border border-slate-200 bg-white p-3 text-sm" data-testid="flip-card">
              <div className="mb-2 flex flex-wrap items-center gap-3">
                <span className="rounded bg-rose-100 px-1.5 py-0.5 text-xs font-medium text-rose-800">{FLIP_LABEL[r.flip ?? ""]}</span>
                <Link className="text-blue-700 hover:underline" href={`/runs/${runId}/trajectories/${r.trajectoryId}`}>
                  step {r.step} · {r.taskId} · sample {r.indexInGroup}
                </Link>
                <span>
                  reward <RewardValue value={r.oldReward} /> → <RewardValue value={r.newReward} />
                </span>
                <span>
                  advantage <AdvantageValue value={r.oldAdvantage} /> → <AdvantageValue value={r.newAdvantage} />
                </span>
              </div>
              <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
                <div data-testid="original-reasoning">
                  <div className="text-xs font-medium text-slate-500">Original judge</div>
                  <p className="whitespace-pre-wrap">{r.oldReasoning || "(no reasoning stored)"}</p>
                </div>
                <div data-testid="new-reasoning">
                  <div className="text-xs font-medium text-slate-500">New judge</div>
                  <p className="whitespace-pre-wrap">{r.newReasoning || "(none)"}</p>
                </div>
              </div>
            </div>
          ))}
        </section>
      )}

      <section>
        <div className="mb-2 flex items-center gap-3">
          <h2 className="text-sm font-semibold text-slate-700">Every trajectory: old vs new reward and group advantage</h2>
          <label className="flex items-center gap-1 text-xs">
            <input type="checkbox" checked={onlyFlipped} onChange={(e) => setOnlyFlipped(e.target.checked)} /> only changed
          </label>
        </div>
        <div className="relative overflow-x-auto">
          <table className="w-full text-sm">
            <thead className="text-left text-xs text-slate-500">
              <tr>
                <th className="py-1">Step</th>
                <th>Group</th>
                <th>#</th>
                <th>Old reward</th>
                <th>New reward</th>
                <th>Old adv.</th>
                <th>New adv.</th>
                <th>Change</th>
                <th>k agreement</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.trajectoryId} className="border-t border-slate-100" data-testid="rescored-row">
                  <td className="py-1">{r.step}</td>
                  <td>
                    <Link className="text-blue-700 hover:underline" href={`/runs/${runId}/groups/${r.groupId}`}>
                      {r.taskId}
                    </Link>
                  </td>
                  <td>
                    <Link className="text-blue-700 hover:underline" href={`/runs/${runId}/trajectories/${r.trajectoryId}`}>
                      {r.indexInGroup}
                    </Link>
                  </td>
                  <td>
                    <RewardValue value={r.oldReward} />
                  </td>
                  <td>
                    <RewardValue value={r.newReward} />
                  </td>
                  <td>
                    <AdvantageValue value={r.oldAdvantage} />
                  </td>
                  <td>
                    <AdvantageValue value={r.newAdvantage} />
                  </td>
                  <td>{r.flip ? FLIP_LABEL[r.flip] : ""}</td>
                  <td>{r.agreement === null ? "—" : pct(r.agreement)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </article>
  );
}
