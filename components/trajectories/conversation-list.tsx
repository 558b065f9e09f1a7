"use client";
/**
 * The conversation, turn by turn. Long episodes (UserRL/tau-bench dialogues reach hundreds of messages) render
 * in windows of 200: more are mounted when the end of the list scrolls into view, and every card uses
 * `content-visibility: auto`, so off-screen cards cost no layout or paint.
 */
import { useEffect, useRef, useState } from "react";
import type { ConversationMessage, LlmCallRecord } from "@/lib/conversation";
import { MessageCard } from "./message-card";

export const WINDOW = 200;

export function ConversationList({ messages, callsPerMessage }: { messages: ConversationMessage[]; callsPerMessage: LlmCallRecord[][] }) {
  const [shown, setShown] = useState(WINDOW);
  const sentinel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = sentinel.current;
    if (!el || shown >= messages.length) return;
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) setShown((n) => Math.min(messages.length, n + WINDOW));
      },
      { rootMargin: "800px" },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [shown, messages.length]);

  if (messages.length === 0) return <p className="text-sm text-slate-500">This trajectory has no messages.</p>;
  return (
    <>
      <ol className="space-y-2" data-testid="conversation">
        {messages.slice(0, shown).map((m, i) => (
          <MessageCard key={i} index={i} message={m} calls={callsPerMessage[i] ?? []} />
        ))}
      </ol>
      {shown < messages.length && (
        <div ref={sentinel} className="py-4 text-center text-sm text-slate-500">
          Showing {shown} of {messages.length} messages ·{" "}
          <button type="button" className="text-blue-700 hover:underline" onClick={() => setShown(messages.length)}>
            show all
          </button>
        </div>
      )}
    </>
  );
}
