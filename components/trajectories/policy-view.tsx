"use client";
/**
 * The policy's view of a trajectory: the token sequence it saw and was trained on (the chat template around every
 * message, its own sampled replies), with a heat strip over the sampled tokens for the chosen per-token metric and
 * markers where the PPO clip bound. Loaded when opened: a long episode's tokens are hundreds of KB.
 */
import { useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { formatNumber } from "@/lib/format";
import { CLIP_CODES, type PolicyTokens } from "@/lib/policy-tokens";
import { QueryState } from "./badges";
import {
  METRIC_LABELS,
  availableMetrics,
  colourScale,
  displayPiece,
  metricValues,
  summarize,
  tokenColour,
  tokenSegments,
  type TokenMetric,
  type TokenSegment,
} from "./policy-view-model";

export function PolicyView({ runId, trajectoryId, endReason }: { runId: string; trajectoryId: string; endReason: string | null }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="rounded border border-slate-200 bg-white p-3" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer text-sm font-semibold text-slate-700">
        Policy&apos;s view <span className="font-normal text-slate-500">(the tokens it saw and was trained on, per-token values)</span>
      </summary>
      {open && <PolicyTokensPanel runId={runId} trajectoryId={trajectoryId} endReason={endReason} />}
    </details>
  );
}

function PolicyTokensPanel({ runId, trajectoryId, endReason }: { runId: string; trajectoryId: string; endReason: string | null }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.trajectories.policyTokens.queryOptions({ runId, id: trajectoryId }));
  if (q.isLoading || q.isError) return <QueryState loading={q.isLoading} error={q.error} what="the policy's tokens" />;
  if (!q.data)
    return <p className="mt-2 text-sm text-slate-500">No tokens recorded: this run&apos;s policy does not sample tokens here.</p>;
  return <TokenStrip tokens={q.data} endReason={endReason} />;
}

function TokenStrip({ tokens: t, endReason }: { tokens: PolicyTokens; endReason: string | null }) {
  const metrics = availableMetrics(t);
  const [metric, setMetric] = useState<TokenMetric | null>(metrics[0] ?? null);
  const [unfolded, setUnfolded] = useState<Set<number>>(new Set());
  const [hovered, setHovered] = useState<number | null>(null);
  const values = useMemo(() => (metric ? metricValues(t, metric) : t.ids.map(() => null)), [t, metric]);
  const scale = metric ? colourScale(metric, values) : 1;
  const segments = useMemo(() => tokenSegments(t), [t]);
  const summary = useMemo(() => summarize(t), [t]);

  const token = (i: number) => {
    const p = displayPiece(t.pieces[i]);
    const sampled = t.sampled[i] > 0;
    const clip = t.update?.clipped?.[i] ?? CLIP_CODES.none;
    return (
      <span key={i} className="contents">
        <span
          data-testid={sampled ? "policy-token" : "context-token"}
          data-clipped={clip !== CLIP_CODES.none ? String(clip) : undefined}
          tabIndex={sampled ? 0 : undefined}
          onMouseEnter={sampled ? () => setHovered(i) : undefined}
          onFocus={sampled ? () => setHovered(i) : undefined}
          style={{ backgroundColor: metric && sampled ? tokenColour(metric, values[i], scale) : undefined }}
          className={[
            // pre-wrap: spaces and newlines as rendered, but a long line (a tool schema's one-line JSON) wraps
            // instead of running past the strip's right edge (with "pre" every span, spaces included, forbids a break);
            // anywhere: a long token breaks too
            "whitespace-pre-wrap [overflow-wrap:anywhere]",
            sampled ? "text-slate-900" : "text-slate-400",
            // A byte that only starts a character shows no text (the character shows on its last byte): keep it
            // a sliver wide so it can still be hovered.
            p.text === "" ? "inline-block h-3 w-0.5 align-middle" : "",
            p.special ? "rounded-sm bg-slate-100 px-0.5 text-[10px] text-slate-500" : "",
            clip === CLIP_CODES.clipped ? "underline decoration-2 decoration-purple-600" : "",
            clip === CLIP_CODES.dualClipped ? "underline decoration-double decoration-2 decoration-purple-900" : "",
          ].join(" ")}
        >
          {p.text}
        </span>
        {p.newline && <br />}
      </span>
    );
  };

  const segment = (s: TokenSegment, k: number) => {
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, j) => token(from + j));
    const body =
      s.folded && !unfolded.has(k) ? (
        <>
          {range(s.start, s.folded.start)}
          <button
            type="button"
            onClick={() => setUnfolded(new Set(unfolded).add(k))}
            className="mx-1 rounded border border-slate-300 bg-slate-50 px-1 text-[10px] text-slate-600 hover:bg-slate-100"
          >
            … {s.folded.end - s.folded.start} context tokens folded: show
          </button>
          {range(s.folded.end, s.end)}
        </>
      ) : (
        range(s.start, s.end)
      );
    return (
      <span
        key={k}
        data-testid={s.kind === "reply" ? "policy-reply" : undefined}
        title={s.kind === "reply" ? `policy turn ${s.turn}` : undefined}
      >
        {s.rerendered && (
          <span className="my-1 block border-t border-dashed border-amber-400 text-[10px] text-amber-800" data-testid="rerendered">
            re-rendered by the chat template from here: the tokens below were sampled from this prompt
          </span>
        )}
        {body}
      </span>
    );
  };

  return (
    <div className="mt-3 space-y-2 text-sm">
      <div className="flex flex-wrap items-center gap-3 text-xs text-slate-600">
        <span data-testid="policy-view-summary">
          {summary.tokens} tokens, {summary.sampled} sampled
          {summary.perplexity !== null && <> · perplexity of its samples {formatNumber(summary.perplexity, 3)}</>}
          {t.update?.clipped && (
            <>
              {" "}
              · clipped {summary.clipped}
              {summary.dualClipped > 0 && <>, dual-clipped {summary.dualClipped}</>}
            </>
          )}{" "}
          · context {t.contextSize}
        </span>
        {metrics.length > 0 && (
          <label className="ml-auto flex items-center gap-1">
            Colour by
            <select
              aria-label="Token metric"
              className="rounded border border-slate-300 px-1 py-0.5"
              value={metric ?? ""}
              onChange={(e) => setMetric(e.target.value as TokenMetric)}
            >
              {metrics.map((m) => (
                <option key={m} value={m}>
                  {METRIC_LABELS[m]}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {t.truncatedPrompt > 0 && (
        <p className="rounded border border-amber-200 bg-amber-50 px-2 py-1 text-xs text-amber-900" data-testid="prompt-truncated">
          The opening prompt lost its first {t.truncatedPrompt} tokens to fit the policy&apos;s context of {t.contextSize}: the policy never
          saw them.
        </p>
      )}
      {endReason === "context_full" && (
        <p className="rounded border border-amber-200 bg-amber-50 px-2 py-1 text-xs text-amber-900">
          The episode ended with context_full: the next prompt and a reply no longer fitted {t.contextSize} tokens.
        </p>
      )}
      {t.rerenderedAt && t.rerenderedAt.length > 0 && (
        <p className="rounded border border-amber-200 bg-amber-50 px-2 py-1 text-xs text-amber-900" data-testid="not-prefix-stable">
          The chat template is not prefix-stable here: {t.rerenderedAt.length === 1 ? "once" : `${t.rerenderedAt.length} times`} the next
          prompt did not extend the previous one (e.g. a template that drops earlier reasoning), so the conversation was re-rendered and
          sampling continued from the new rendering. The tokens before each re-rendering were trained as sampled, in their own context, as a
          sequence of their own.
        </p>
      )}
      {t.templateDivergedTurns !== undefined && t.templateDivergedTurns > 0 && (
        <p className="rounded border border-sky-200 bg-sky-50 px-2 py-1 text-xs text-sky-900" data-testid="template-diverged">
          Append-only context: at {t.templateDivergedTurns === 1 ? "one turn" : `${t.templateDivergedTurns} turns`} the chat template would
          have rendered the conversation otherwise than the policy sampled it (e.g. a tool call&apos;s JSON spaced differently). The sampled
          tokens were kept and only each observation&apos;s rendered text appended, so this one sequence is what the policy saw and was
          trained on.
        </p>
      )}
      {!t.update && (
        <p className="text-xs text-slate-500">No update values: this sample was not trained on (unscored, or its step made no update).</p>
      )}
      <Legend metric={metric} scale={scale} />
      <HoverLine t={t} index={hovered} />
      <div
        className="max-h-[36rem] overflow-y-auto overflow-x-hidden rounded border border-slate-100 bg-slate-50 p-2 font-mono text-xs leading-5 [overflow-wrap:anywhere]"
        data-testid="token-strip"
      >
        {segments.map(segment)}
      </div>
      {t.chatTemplate && <p className="text-xs text-slate-500">Rendered with the {t.chatTemplate}.</p>}
      <p className="text-xs text-slate-400">
        The sequence ends at the policy&apos;s last reply: what followed it was never trained on. Grey: context (template, system, user,
        tool); underlined: the PPO clip bound at the update&apos;s last pass (no gradient from that token).
      </p>
    </div>
  );
}

function Legend({ metric, scale }: { metric: TokenMetric | null; scale: number }) {
  if (!metric) return null;
  const text: Record<TokenMetric, string> = {
    advantage: `green: reinforced, red: discouraged (full colour at |A| = ${formatNumber(scale, 3)})`,
    ratio: `green: more likely after the update than when sampled, red: less (full colour at ×${formatNumber(Math.exp(scale), 3)})`,
    logprob: `red: unlikely samples (full colour at log p = −${formatNumber(scale, 3)})`,
    kl: `orange: far from the reference (full colour at ${formatNumber(scale, 3)})`,
  };
  return <p className="text-xs text-slate-500">{text[metric]}</p>;
}

/** The hovered token's values in one line (a tooltip per token would be slow to appear and cover its neighbours). */
function HoverLine({ t, index }: { t: PolicyTokens; index: number | null }) {
  if (index === null) return <p className="h-4 text-xs text-slate-400">Hover a sampled token for its values.</p>;
  const lp = t.logprobs?.[index];
  const u = t.update;
  const clip = u?.clipped?.[index];
  const parts = [
    `#${index} · id ${t.ids[index]} · turn ${t.turns[index]}`,
    lp !== undefined ? `log p ${formatNumber(lp, 4)} (p ${formatNumber(Math.exp(lp), 3)})` : null,
    u ? `A ${formatNumber(u.advantages[index], 4)}` : null,
    u?.ratio?.[index] != null ? `ratio ${formatNumber(u.ratio[index]!, 4)}` : null,
    // The update may leave a row whose advantages are all 0 out of its passes: it has no gradient, so no ratio.
    u && !u.ratio ? "no ratio (all-zero advantage: not in the update's passes)" : null,
    u?.kl?.[index] != null ? `KL ${formatNumber(u.kl[index]!, 4)}` : null,
    clip === CLIP_CODES.clipped ? "clipped" : clip === CLIP_CODES.dualClipped ? "dual-clipped" : null,
  ].filter(Boolean);
  return (
    <p className="h-4 font-mono text-xs text-slate-700" data-testid="token-values">
      {parts.join(" · ")}
    </p>
  );
}
