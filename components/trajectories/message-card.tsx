"use client";
/** One conversation message with its author, tool calls, per-turn reward/advantage, and the LLM calls behind it. */
import type { ConversationMessage, LlmCallRecord } from "@/lib/conversation";
import { AdvantageValue, RewardValue, SourceBadge } from "./badges";
import { LlmCallView } from "./llm-call-view";
import { ScrollBox } from "./scroll-box";

/** Tool results are usually JSON: pretty-print them; anything else is shown as written. */
export function prettyContent(content: string): { text: string; json: boolean } {
  const trimmed = content.trim();
  if (!(trimmed.startsWith("{") || trimmed.startsWith("["))) return { text: content, json: false };
  try {
    return { text: JSON.stringify(JSON.parse(trimmed), null, 2), json: true };
  } catch {
    return { text: content, json: false };
  }
}

/** System prompts longer than this are folded (a few lines stay readable as they are). */
const COLLAPSE_SYSTEM_AT = 600;

export function MessageCard({
  message,
  index,
  calls,
  highlight,
}: {
  message: ConversationMessage;
  index: number;
  calls: LlmCallRecord[];
  highlight?: string;
}) {
  const content = prettyContent(message.content);
  const isPolicy = message.source === "policy";
  return (
    <li
      className={`grid gap-2 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)] ${highlight ?? ""}`}
      style={{ contentVisibility: "auto", containIntrinsicSize: "auto 120px" }}
      data-testid="message"
      id={`m${index}`}
    >
      <div className={`rounded border p-3 ${isPolicy ? "border-blue-200 bg-blue-50/40" : "border-slate-200 bg-white"}`}>
        <div className="mb-1 flex flex-wrap items-center gap-2 text-xs text-slate-500">
          <SourceBadge source={message.source} />
          <span className="font-mono">{message.role}</span>
          {message.name && <span className="font-mono">{message.name}</span>}
          <span>turn {message.turn}</span>
          <span className="text-slate-400">#{index}</span>
          {message.tokens !== undefined && <span>{message.tokens} tok</span>}
          {isPolicy && (
            <span className="ml-auto flex gap-3">
              {message.turnReward !== undefined && (
                <span>
                  turn reward <RewardValue value={message.turnReward} />
                </span>
              )}
              {message.advantage !== undefined && (
                <span>
                  adv <AdvantageValue value={message.advantage} />
                </span>
              )}
            </span>
          )}
        </div>
        {message.content && message.role === "system" && message.content.length > COLLAPSE_SYSTEM_AT ? (
          // A system prompt with the policy and tool schemas runs to thousands of pixels (τ²: ~3,000): folded, with
          // its first line as the summary.
          <details data-testid="system-prompt">
            <summary className="cursor-pointer text-sm text-slate-600">
              {message.content.split("\n", 1)[0].slice(0, 160)}{" "}
              <span className="text-xs text-slate-400">({message.content.length.toLocaleString("en-US")} characters; show)</span>
            </summary>
            <pre className="mt-1 whitespace-pre-wrap break-words font-sans text-sm">{content.text}</pre>
          </details>
        ) : (
          message.content &&
          (content.json ? (
            <ScrollBox text={content.text} className="max-h-80 overflow-auto whitespace-pre-wrap break-words font-mono text-xs" />
          ) : (
            <pre className="whitespace-pre-wrap break-words font-sans text-sm">{content.text}</pre>
          ))
        )}
        {message.toolCalls?.map((c) => (
          <div key={c.id} className="mt-2 rounded bg-slate-900 p-2 font-mono text-xs text-slate-100">
            <span className="text-teal-200">{c.name}</span>
            <span className="text-slate-300"> ({c.id})</span>
            <pre className="overflow-x-auto" tabIndex={0}>
              {JSON.stringify(c.arguments, null, 2)}
            </pre>
          </div>
        ))}
        {message.formatError && <p className="mt-2 rounded bg-amber-50 p-2 text-xs text-amber-900">Format error: {message.formatError}</p>}
      </div>
      <div className="space-y-1">
        {calls.map((c) => (
          <LlmCallView key={c.id} call={c} />
        ))}
      </div>
    </li>
  );
}
