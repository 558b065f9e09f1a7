"use client";
/**
 * An environment's page: every evaluation of it side by side — API models, training checkpoints, the gold replay —
 * one leaderboard per task set and k (only those are comparable), best pass@1 first; tick rows to overlay them in
 * Compare.
 */
import Link from "next/link";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { QueryState } from "@/components/trajectories/badges";
import { StatusBadge } from "@/components/runs/status-badge";
import { findEnvironment } from "@/lib/environments";
import { PolicyLabel, Score, usd } from "./scores";
import { DemoEvaluationButton } from "./demo-evaluation-button";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

type Leaderboards = inferRouterOutputs<AppRouter>["evaluations"]["environment"]["leaderboards"];

export function EnvironmentEvaluations({ name }: { name: string }) {
  const trpc = useTRPC();
  const page = useQuery(trpc.evaluations.environment.queryOptions({ name }));
  const [selected, setSelected] = useState<string[]>([]);
  const info = findEnvironment(name);
  const toggle = (id: string) => setSelected((prev) => (prev.includes(id) ? prev.filter((x) => x !== id) : [...prev, id].slice(-8)));
  return (
    <section className="space-y-4">
      <header className="flex flex-wrap items-end gap-3">
        <div className="mr-auto">
          <h1 className="text-xl font-semibold">{name}</h1>
          {info && (
            <p className="max-w-3xl text-sm text-slate-600">
              {info.seedSystem} · {info.description}
            </p>
          )}
          {page.data && (
            <p className="max-w-3xl text-xs text-slate-600" data-testid="success-rule">
              A trial succeeds when {page.data.successRule}; pass@1 and pass^k count these successes.
            </p>
          )}
        </div>
        {selected.length >= 1 && (
          <Link
            href={`/compare?runs=${selected.join(",")}`}
            className="rounded border border-blue-700 px-3 py-1.5 text-sm text-blue-700 hover:bg-blue-50"
          >
            Compare {selected.length}
          </Link>
        )}
        {name === "tau2-retail" && <DemoEvaluationButton />}
      </header>
      <QueryState loading={page.isLoading} error={page.error} empty={page.data?.leaderboards.length === 0} what="evaluations" />
      {page.data?.leaderboards.length === 0 && (
        <p className="text-sm text-slate-600">
          No evaluation of {name} yet. Launch one with a Policy: endpoint in the launch form, or{" "}
          <code className="text-xs">rollout-lab eval --env {name} --base-url URL --model M --k 4</code>.
        </p>
      )}
      {page.data?.leaderboards.map((board) => (
        <div key={board.key} className="overflow-x-auto rounded border border-slate-200 bg-white" data-testid="leaderboard">
          <h2 className="border-b border-slate-100 px-3 py-2 text-sm font-semibold text-slate-700">
            {board.label} · k = {board.k}
          </h2>
          {board.entries.length > 0 && <BoardTable entries={board.entries} k={board.k} ranked selected={selected} toggle={toggle} />}
          {board.partial.length > 0 && (
            <div data-testid="partial-evaluations">
              <h3 className="border-t border-slate-100 bg-amber-50 px-3 py-1 text-xs font-medium text-amber-900">
                Partial runs — cancelled, failed or still running: scores over the tasks they finished, not ranked
              </h3>
              <BoardTable entries={board.partial} k={board.k} ranked={false} selected={selected} toggle={toggle} />
            </div>
          )}
        </div>
      ))}
    </section>
  );
}

type Entry = Leaderboards[number]["entries"][number];

/** One leaderboard's rows: ranked (complete runs) or with their coverage (partial runs). */
function BoardTable({
  entries,
  k,
  ranked,
  selected,
  toggle,
}: {
  entries: Entry[];
  k: number;
  ranked: boolean;
  selected: string[];
  toggle: (id: string) => void;
}) {
  return (
    <table className="w-full text-left text-xs">
      <thead className="bg-slate-50 text-slate-500">
        <tr>
          <th className="px-2 py-1" aria-label="select" />
          <th className="px-2 py-1">{ranked ? "#" : "coverage"}</th>
          <th className="px-2 py-1">policy</th>
          <th className="px-2 py-1">pass@1</th>
          <th className="px-2 py-1">pass^{k}</th>
          <th className="px-2 py-1">mean reward</th>
          <th className="px-2 py-1">tasks · trials</th>
          <th className="px-2 py-1">cost</th>
          <th className="px-2 py-1">run</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e, i) => (
          <tr key={e.runId} className="border-t border-slate-100">
            <td className="px-2 py-1">
              <input
                type="checkbox"
                aria-label={`select ${e.name}`}
                checked={selected.includes(e.runId)}
                onChange={() => toggle(e.runId)}
              />
            </td>
            <td className="px-2 py-1 tabular-nums" data-testid={ranked ? "rank" : "coverage"}>
              {ranked ? i + 1 : `${e.coverage.evaluated} of ${e.coverage.selected ?? "?"} tasks`}
            </td>
            <td className="px-2 py-1">
              <PolicyLabel label={e.policy} kind={e.policyKind} />
            </td>
            <td className="px-2 py-1">
              <Score value={e.passAt1} />
            </td>
            <td className="px-2 py-1">
              <Score value={e.passHatK} />
            </td>
            <td className="px-2 py-1">
              <Score value={e.rewardMean} />
            </td>
            <td className="px-2 py-1 tabular-nums">
              {e.tasks} · {e.trials}
              {e.unscored ? <span className="text-amber-700"> +{e.unscored}</span> : null}
            </td>
            <td className="px-2 py-1 tabular-nums">{usd(e.costUsd)}</td>
            <td className="px-2 py-1">
              <Link href={`/runs/${e.runId}`} className="mr-2 text-blue-700 hover:underline">
                {e.name}
              </Link>
              <StatusBadge status={e.status} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
