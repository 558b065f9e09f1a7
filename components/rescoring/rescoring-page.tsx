"use client";
/** The run's re-scoring tab: start a job, follow the jobs. */
import Link from "next/link";
import { RescoringForm } from "./rescoring-form";
import { RescoringList } from "./rescoring-list";

export function RescoringPage({ runId, step, groupId }: { runId: string; step?: number; groupId?: string }) {
  return (
    <article className="space-y-6">
      <header>
        <Link href={`/runs/${runId}`} className="text-sm text-blue-700 hover:underline">
          ← Run
        </Link>
        <h1 className="text-xl font-semibold">Re-scoring</h1>
        <p className="text-sm text-slate-600">
          Score stored trajectories again with another judge, prompt or reward, and see which verdicts flip. The original rewards are kept.
          API: <code>rescoring.create</code> / <code>rescoring.get</code> (tRPC at <code>/api/trpc</code>).
        </p>
      </header>
      <RescoringForm runId={runId} defaultStep={step} defaultGroupId={groupId} />
      <section>
        <h2 className="mb-2 text-sm font-semibold text-slate-700">Jobs</h2>
        <RescoringList runId={runId} />
      </section>
    </article>
  );
}
