"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { formatNumber } from "@/lib/format";
import { Elapsed } from "./elapsed";
import { TrainingTime } from "./training-time";
import { TagEditor } from "./tag-editor";
import { NotesEditor } from "./notes-editor";
import { QueueNotice } from "./queue-notice";
import { SlurmJobNotice } from "./slurm-job-notice";
import { CheckpointList } from "./checkpoint-list";
import { EventLog } from "./event-log";
import { MetricPanel } from "./metric-panel";
import { WarmupPanel } from "./warmup-panel";
import { ProgressBar } from "./progress-bar";
import { RunActions } from "./run-actions";
import { StatusBadge } from "./status-badge";
import { RewardHealthPanel } from "@/components/signals/reward-health-panel";
import { RunHealthBanner } from "@/components/signals/run-health-banner";
import { describeBackend, slowPathNotice } from "@/lib/backend-notice";
import { EvaluationPanel } from "@/components/evaluations/evaluation-panel";

/** An evaluation run (its config has an eval section): its scores come first on the page. */
function isEvaluationConfig(config: unknown): boolean {
  return typeof config === "object" && config !== null && "eval" in config && Boolean((config as { eval?: unknown }).eval);
}

function isLive(status: string | undefined) {
  return status === "running" || status === "queued" || status === "stale";
}

export function RunDetail({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const run = useQuery({
    ...trpc.runs.get.queryOptions({ id: runId }),
    refetchInterval: (q) => (isLive(q.state.data?.status) ? 2000 : false),
  });

  if (run.isLoading) return <p className="text-sm text-slate-500">Loading run…</p>;
  if (run.isError) return <p className="text-sm text-red-700">Could not load this run: {run.error.message}</p>;
  const r = run.data!;
  const live = isLive(r.status);
  const backend = r.backend ? describeBackend(r.backend) : null;

  return (
    <article className="space-y-6">
      <header className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold" data-testid="run-name">
          {r.name}
        </h1>
        <StatusBadge status={r.status} />
        {r.phase && <span className="text-xs text-slate-500">phase: {r.phase}</span>}
        <TagEditor runId={r.id} tags={r.tags} />
        {r.cancelRequested && r.status === "running" && <span className="text-xs text-amber-700">cancelling at the next step…</span>}
        <div className="ml-auto flex items-center gap-4">
          <ProgressBar done={r.step} total={r.totalSteps} />
          <RunActions run={r} />
        </div>
      </header>
      {/* Scrolls sideways on a phone instead of pushing Compare off-screen. */}
      <nav className="flex gap-4 relative overflow-x-auto whitespace-nowrap border-b border-slate-200 text-sm" data-testid="run-tabs">
        <span className="border-b-2 border-blue-700 pb-2 font-medium">Overview</span>
        <Link href={`/runs/${r.id}/trajectories`} className="shrink-0 pb-2 text-slate-600 hover:text-slate-900">
          Trajectories
        </Link>
        <Link href={`/runs/${r.id}/groups`} className="pb-2 text-slate-600 hover:text-slate-900">
          Groups
        </Link>
        <Link href={`/runs/${r.id}/rescoring`} className="pb-2 text-slate-600 hover:text-slate-900">
          Re-scoring
        </Link>
        <Link href={`/runs/${r.id}/signals`} className="pb-2 text-slate-600 hover:text-slate-900">
          Signals
        </Link>
        <Link href={`/compare?runs=${r.id}`} className="pb-2 text-slate-600 hover:text-slate-900">
          Compare
        </Link>
      </nav>
      <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-4">
        <Fact label="Environment" value={r.environment} />
        <Fact label={isEvaluationConfig(r.config) ? "Evaluated policy" : "Policy model"} value={r.policyModel} />
        <Fact label="Latest reward" value={formatNumber(r.latestReward)} />
        <Fact label="Training time" title="The warm-up and the recorded steps' own time, without time spent queued, stopped or cancelling">
          <TrainingTime runId={r.id} progress={`${r.status}:${r.step}`} />
        </Fact>
        <Fact label="Wall time" title="From the run's first start to its end, including time spent queued, stopped or cancelling">
          <Elapsed startedAt={r.startedAt} finishedAt={r.finishedAt} />
        </Fact>
        <Fact label="Seed" value={String(r.seed)} />
        <Fact label="Launched by" value={r.launchedByName ? `${r.launchedBy} · ${r.launchedByName}` : r.launchedBy} />
        <Fact label="Worker" value={r.workerId ?? "—"} wrap />
        <Fact label="Backend" value={backend?.summary ?? "—"} detail={backend?.detail} wide />
      </dl>
      <NotesEditor runId={r.id} notes={r.notes} />
      {r.slurm && <SlurmJobNotice job={r.slurm} />}
      {r.status === "queued" && !r.slurm && <QueueNotice runId={r.id} />}
      {r.error && (
        <p className="rounded border border-red-200 bg-red-50 p-3 text-sm text-red-800" data-testid="run-error">
          {r.error}
        </p>
      )}
      {slowPathNotice(r.backend) && (
        <p role="status" data-testid="slow-path" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
          {slowPathNotice(r.backend)}
        </p>
      )}
      {isEvaluationConfig(r.config) && (
        <EvaluationPanel runId={r.id} environment={r.environment} live={live} progress={`${r.status}:${r.step}`} />
      )}
      {!isEvaluationConfig(r.config) && <RunHealthBanner runId={r.id} live={live} />}
      <WarmupPanel runId={r.id} live={live} />
      {isEvaluationConfig(r.config) ? (
        // An evaluation's "steps" are task positions: its scores are the panel above (per task, pass^k by k), and a
        // chart per metric over task positions (36 of them) read as a training curve. Kept, folded, for the curious.
        <details data-testid="evaluation-step-charts">
          <summary className="cursor-pointer text-sm text-slate-600">
            Per-task metrics as charts (x: task position, not training steps)
          </summary>
          <div className="mt-3">
            <MetricPanel runId={r.id} live={live} progress={`${r.status}:${r.step}`} />
          </div>
        </details>
      ) : (
        <MetricPanel runId={r.id} live={live} progress={`${r.status}:${r.step}`} />
      )}
      <RewardHealthPanel runId={r.id} />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <EventLog runId={r.id} live={live} progress={`${r.status}:${r.step}`} />
        <CheckpointList runId={r.id} live={live} progress={`${r.status}:${r.step}`} evaluable={r.source === "rollout-lab"} />
      </div>
      <section>
        <h2 className="mb-2 text-sm font-semibold text-slate-700">Config</h2>
        <pre className="max-h-96 overflow-auto rounded border border-slate-200 bg-white p-3 text-xs" tabIndex={0} aria-label="Run config">
          {JSON.stringify(r.config, null, 2)}
        </pre>
      </section>
    </article>
  );
}

/**
 * One fact; `wide` spans the grid's full width and `wrap` breaks long values (a worker id). `detail` is a second,
 * smaller line (the reasons behind the backend).
 */
function Fact({
  label,
  value,
  detail,
  children,
  wide,
  wrap,
  title,
}: {
  label: string;
  /** What the label means, on hover. */
  title?: string;
  value?: string;
  detail?: string | null;
  children?: React.ReactNode;
  wide?: boolean;
  wrap?: boolean;
}) {
  return (
    <div
      className={`min-w-0 rounded border border-slate-200 bg-white px-3 py-2 ${wide ? "col-span-2 sm:col-span-4" : ""}`}
      data-testid={`fact-${label.toLowerCase().replace(/\s+/g, "-")}`}
    >
      <dt className="text-xs text-slate-600" title={title}>
        {label}
      </dt>
      <dd className={wide || wrap ? "break-words" : "truncate"} title={value}>
        {children ?? value}
      </dd>
      {detail && <dd className="mt-0.5 break-words text-xs text-slate-600">{detail}</dd>}
    </div>
  );
}
