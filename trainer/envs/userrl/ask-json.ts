/**
 * One LLM request whose reply the gym must read (a judge's verdict, a simulated user's JSON). An unreadable reply is
 * recorded as a failed call (through `validate`) and asked for once more with a reminder; if the second is unreadable
 * too the caller gets null and decides (the gyms then leave the episode unscored rather than scoring it 0).
 */
import type { LlmRole } from "../../../lib/conversation";
import type { LlmChatRequest } from "../types";
import type { GymIo } from "./gym-episode";

type Message = LlmChatRequest["messages"][number];

export interface AskJsonRequest<T> {
  role: LlmRole;
  messages: Message[];
  /** The reply read, or null when it cannot be used. */
  read: (text: string) => T | null;
  /** Why an unreadable reply cannot be used (recorded with the failed call). */
  expected: string;
  /** The offline provider's reply (the gym's rule-based simulator). */
  offline: () => string;
}

export async function askJson<T>(io: GymIo, req: AskJsonRequest<T>): Promise<{ value: T | null; callIds: string[] }> {
  let messages = req.messages;
  const callIds: string[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await io.llm.chat({
      role: req.role,
      turn: io.turn,
      responseFormat: "json",
      messages,
      validate: (text) => (req.read(text) === null ? req.expected : null),
      offline: req.offline,
    });
    callIds.push(res.callId);
    const value = req.read(res.text);
    if (value !== null) return { value, callIds };
    // A new array: the request already sent (and recorded) keeps the messages it had.
    messages = [
      ...messages,
      { role: "assistant", content: res.text },
      { role: "user", content: "That reply could not be read. Answer with only the JSON object asked for." },
    ];
  }
  return { value: null, callIds };
}

/** The first JSON object in a reply (bare, fenced or inside prose), or null. */
export function firstJsonObject(text: string): Record<string, unknown> | null {
  const m = /\{[\s\S]*\}/.exec(text);
  if (!m) return null;
  try {
    const v: unknown = JSON.parse(m[0]);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
