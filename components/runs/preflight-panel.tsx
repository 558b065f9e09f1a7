"use client";
/**
 * The launch form's pre-flight check: for a valid config, a trainer worker renders the environment's real opening
 * prompt with the chosen policy's tokenizer and answers with the fit and per-step estimates (lib/preflight.ts).
 * A check belongs to the config it was asked for: when the config changes, the old answer is dropped, so a stale
 * "does not fit" can never hold the Launch button. No answer within a few seconds likely means no worker is listening:
 * the user may launch anyway, and the panel keeps asking for two minutes, so a late answer still shows.
 */
import { useEffect, useState } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import type { PreflightResult } from "@/lib/preflight";
import { formatDuration } from "@/lib/format";

const GiB = 2 ** 30;
const NO_WORKER_AFTER_S = 12;

export type PreflightVerdict = "checking" | "ok" | "problems" | "unavailable";

export function PreflightPanel({
  config,
  onVerdict,
}: {
  config: Record<string, unknown> | null;
  onVerdict: (v: PreflightVerdict) => void;
}) {
  const trpc = useTRPC();
  const key = config ? JSON.stringify(config) : null;
  const [check, setCheck] = useState<{ id: string; key: string } | null>(null);
  const request = useMutation(trpc.runActions.preflight.mutationOptions());
  const { mutate } = request;

  useEffect(() => {
    if (!key) return;
    // A reply for a config the user has already changed is ignored (cleanup clears `alive`).
    let alive = true;
    const t = setTimeout(() => {
      mutate({ config: JSON.parse(key) }, { onSuccess: (r) => alive && setCheck({ id: r.id, key }) });
    }, 500);
    return () => {
      alive = false;
      clearTimeout(t);
    };
  }, [key, mutate]);

  const current = check && check.key === key ? check.id : null;
  const result = useQuery({
    ...trpc.runActions.preflightResult.queryOptions({ id: current ?? "" }),
    enabled: Boolean(current),
    refetchInterval: (q) => {
      const d = q.state.data;
      if (d && (d.status === "done" || d.status === "failed")) return false;
      // Past the wait a busy or slow worker may still answer: keep asking, less often, while a worker would still
      // take the check (trainer/preflight/loop.ts skips checks older than 2 minutes).
      if (d && d.ageSeconds > NO_WORKER_AFTER_S) return d.ageSeconds > 120 ? false : 2000;
      return 400;
    },
  });
  const data = current ? result.data : undefined;
  const verdict: PreflightVerdict = !key
    ? "unavailable"
    : !data
      ? "checking"
      : data.status === "done" && data.result
        ? data.result.problems.length || !data.result.fits
          ? "problems"
          : "ok"
        : data.status === "failed" || data.ageSeconds > NO_WORKER_AFTER_S
          ? "unavailable"
          : "checking";
  useEffect(() => onVerdict(verdict), [verdict, onVerdict]);

  if (!key) return null;
  return (
    <section className="rounded border border-slate-200 bg-white p-3 text-sm" data-testid="preflight" data-verdict={verdict}>
      <h2 className="mb-1 font-semibold text-slate-700">Pre-flight check</h2>
      {verdict === "checking" && (
        <p className="text-slate-500">Rendering the environment&apos;s opening prompt with the policy&apos;s tokenizer…</p>
      )}
      {verdict === "unavailable" && (
        <p className="text-slate-600">
          {data?.status === "failed"
            ? `The check failed: ${data.error}`
            : `No trainer worker answered in ${NO_WORKER_AFTER_S} s (is one running?).`}{" "}
          You can still launch; the worker checks again when it starts the run.
        </p>
      )}
      {data?.result &&
        (verdict === "ok" || verdict === "problems") &&
        (data.result.evaluation ? <EvaluationFirstRequest r={data.result} /> : <Figures r={data.result} config={config} />)}
    </section>
  );
}

/** An evaluation by an endpoint or the gold replay: its size and the first request the model receives. */
function EvaluationFirstRequest({ r }: { r: PreflightResult }) {
  const e = r.evaluation!;
  const req = e.firstRequest;
  return (
    <div className="space-y-2" data-testid="preflight-first-request">
      <p className="text-slate-700">
        {e.tasks.toLocaleString("en-US")} task(s) × {r.episodesPerStep} trial(s) = {e.trials.toLocaleString("en-US")} episodes. The first
        request, for task {r.taskId} (~{r.promptTokens.toLocaleString("en-US")} tokens with its {req.tools.length} tool schema(s)):
      </p>
      <p className="font-mono text-xs text-slate-600">
        POST {req.endpoint}/chat/completions · model {req.model}
        {Object.keys(req.params).length > 0 && <> · {JSON.stringify(req.params)}</>}
      </p>
      <ol className="max-h-64 space-y-1 overflow-auto rounded border border-slate-100 p-2 text-xs">
        {req.messages.map((m, i) => (
          <li key={i}>
            <span className="font-mono text-slate-500">{m.role}: </span>
            <span className="whitespace-pre-wrap break-words">{m.content.length > 1200 ? `${m.content.slice(0, 1200)}…` : m.content}</span>
          </li>
        ))}
      </ol>
      {req.tools.length > 0 && (
        <details className="text-xs text-slate-600">
          <summary className="cursor-pointer">tools: {req.tools.map((t) => t.name).join(", ")}</summary>
          <pre className="mt-1 max-h-48 overflow-auto">{JSON.stringify(req.tools, null, 2)}</pre>
        </details>
      )}
      {r.problems.length > 0 && (
        <ul className="space-y-1 rounded border border-red-200 bg-red-50 p-2 text-red-800" role="alert">
          {r.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The per-step estimate times the run's steps, the figure a launch is decided on ("~4 s a step" hid "~13 min").
 * Warm-up and evaluation steps are named rather than guessed: their cost differs from a GRPO step's.
 */
export function wholeRunEstimate(stepSeconds: number, config: Record<string, unknown> | null): string | null {
  const grpo = (config?.grpo ?? {}) as { steps?: unknown; sftWarmupSteps?: unknown };
  const steps = typeof grpo.steps === "number" ? grpo.steps : null;
  if (steps === null || !Number.isFinite(stepSeconds) || stepSeconds <= 0) return null;
  const warmup = typeof grpo.sftWarmupSteps === "number" && grpo.sftWarmupSteps > 0 ? grpo.sftWarmupSteps : 0;
  const evaluation = (config?.evaluation ?? {}) as { testFreq?: unknown };
  const evals = typeof evaluation.testFreq === "number" && evaluation.testFreq > 0 ? Math.ceil(steps / evaluation.testFreq) : 0;
  const extra = [warmup ? `${warmup} SFT warm-up steps` : "", evals ? `${evals} evaluations` : ""].filter(Boolean).join(" and ");
  return `~${formatDuration(steps * stepSeconds * 1000)} for ${steps} steps${extra ? `, plus ${extra}` : ""}`;
}

function Figures({ r, config }: { r: PreflightResult; config: Record<string, unknown> | null }) {
  const whole = wholeRunEstimate(r.stepSecondsEstimate, config);
  const row = (label: string, value: string, bad = false) => (
    <div className="flex justify-between gap-4">
      <dt className="text-slate-500">{label}</dt>
      <dd className={`tabular-nums ${bad ? "font-semibold text-red-700" : ""}`}>{value}</dd>
    </div>
  );
  return (
    <div className="space-y-2">
      <dl className="grid grid-cols-1 gap-x-8 sm:grid-cols-2">
        {row(
          "opening prompt + reply",
          `${r.promptTokens.toLocaleString("en-US")} + ${r.maxNewTokens} of ${r.contextLength.toLocaleString("en-US")} tokens`,
          !r.fits,
        )}
        {row("episodes per step", String(r.episodesPerStep))}
        {row("tokens trained per step (at most)", r.tokensPerStep.toLocaleString("en-US"))}
        {row("tokens sampled per step (at most)", r.sampledTokensPerStep.toLocaleString("en-US"))}
        {row(
          "step memory (estimate)",
          `${(r.memoryBytes / GiB).toFixed(2)} of ${(r.memoryLimitBytes / GiB).toFixed(0)} GiB`,
          r.memoryBytes > r.memoryLimitBytes,
        )}
        {row(
          "step time (rough)",
          `~${r.stepSecondsEstimate} s (one forward pass took ${r.forwardMs} ms${r.backend ? ` on ${r.backend}` : ""})`,
        )}
        {whole && row("whole run (rough)", whole)}
      </dl>
      {r.problems.length > 0 ? (
        <ul className="space-y-1 rounded border border-red-200 bg-red-50 p-2 text-red-800" role="alert">
          {r.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : (
        <p className="text-emerald-700">
          The opening prompt of task {r.taskId} fits with {r.headroom.toLocaleString("en-US")} tokens to spare for later turns.
        </p>
      )}
      {r.chatTemplate && (
        <p className="text-xs text-slate-500" data-testid="preflight-chat-template">
          {r.chatTemplate}
        </p>
      )}
      <details className="text-xs text-slate-500">
        <summary className="cursor-pointer">
          {r.prompt
            ? `The opening prompt as the policy reads it (${r.promptTokens.toLocaleString("en-US")} tokens)`
            : "What the policy reads last"}
        </summary>
        <pre className="mt-1 max-h-80 overflow-auto whitespace-pre-wrap" data-testid="preflight-prompt" tabIndex={0}>
          {r.prompt ?? r.promptTail}
        </pre>
      </details>
    </div>
  );
}
