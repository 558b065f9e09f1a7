"use client";
/**
 * One recorded LLM call — a simulator's, the judge's, or an evaluated model's (role "policy") — collapsed to a
 * one-line summary; expands to the request (messages with their tool calls, the tools sent) and the response.
 */
import type { LlmCallRecord } from "@/lib/conversation";
import { formatNumber } from "@/lib/format";
import { SourceBadge } from "./badges";

export function LlmCallView({ call }: { call: LlmCallRecord }) {
  return (
    <details
      className={`rounded border text-xs ${call.error ? "border-red-200 bg-red-50" : "border-slate-200 bg-slate-50"}`}
      data-testid="llm-call"
    >
      <summary className="flex cursor-pointer flex-wrap items-center gap-x-2 gap-y-1 px-2 py-1">
        <SourceBadge source={call.role} />
        <span className="font-mono">{call.model}</span>
        <span className="tabular-nums text-slate-600">{call.latencyMs} ms</span>
        <span className="tabular-nums text-slate-600" title="prompt + completion tokens">
          {call.promptTokens}+{call.completionTokens} tok
        </span>
        {call.costUsd > 0 && <span className="tabular-nums text-slate-600">${formatNumber(call.costUsd, 2)}</span>}
        {call.attempt > 1 && <span className="rounded bg-amber-100 px-1 text-amber-800">attempt {call.attempt}</span>}
        {call.cached && <span className="rounded bg-slate-200 px-1">cached</span>}
        {call.error && <span className="truncate text-red-700">error: {call.error}</span>}
      </summary>
      <div className="space-y-2 border-t border-slate-200 p-2">
        <div className="text-slate-500">
          {call.endpoint} · turn {call.turn ?? "—"} · {new Date(call.startedAt).toLocaleTimeString()}
          {Object.keys(call.request.params ?? {}).length > 0 && <> · {JSON.stringify(call.request.params)}</>}
        </div>
        <div>
          <div className="mb-1 font-semibold text-slate-600">Prompt</div>
          {call.request.messages.map((m, i) => (
            <div key={i} className="mb-1">
              <span className="font-mono text-slate-500">
                {m.role}
                {m.toolCallId ? ` (answers ${m.toolCallId})` : ""}:{" "}
              </span>
              <span className="whitespace-pre-wrap break-words">{m.content}</span>
              {m.toolCalls?.length ? <pre className="overflow-x-auto font-mono text-slate-600">{JSON.stringify(m.toolCalls)}</pre> : null}
            </div>
          ))}
        </div>
        {call.request.tools?.length ? (
          <details>
            <summary className="cursor-pointer font-semibold text-slate-600">Tools sent ({call.request.tools.length})</summary>
            <pre className="max-h-60 overflow-auto font-mono">{JSON.stringify(call.request.tools, null, 2)}</pre>
          </details>
        ) : null}
        <div>
          <div className="mb-1 font-semibold text-slate-600">Response</div>
          {call.response ? (
            <>
              <pre className="whitespace-pre-wrap break-words font-mono">{call.response.text || "(empty)"}</pre>
              {call.response.toolCalls?.length ? (
                <pre className="mt-1 overflow-x-auto font-mono" tabIndex={0}>
                  {JSON.stringify(call.response.toolCalls, null, 2)}
                </pre>
              ) : null}
              {call.response.finishReason && <div className="text-slate-500">finish: {call.response.finishReason}</div>}
            </>
          ) : (
            <span className="italic text-slate-500">no response</span>
          )}
        </div>
      </div>
    </details>
  );
}
