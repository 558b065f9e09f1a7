/**
 * The built-in "model" used when a role has no endpoint configured: it runs the environment's own rule-based
 * simulator (`req.offline`) and produces an LlmCallRecord just like a real call, so the inspector shows offline
 * simulator and judge turns exactly the way it shows GPT-backed ones (and offline runs cost nothing).
 */
import { randomUUID } from "node:crypto";
import type { LlmCallRecord } from "../../lib/conversation";
import type { LlmChat, LlmChatRequest, LlmChatResponse } from "../envs/types";

export const OFFLINE_MODEL = "offline";

/** Rough token count (~4 chars/token) so offline runs still chart plausible `llm/*` token metrics. */
function roughTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

export class OfflineUnavailableError extends Error {
  constructor(role: string) {
    super(
      `No LLM endpoint is configured for role "${role}" and this environment has no offline simulator for it. ` +
        `Configure llm.endpoints.${role} in the run config.`,
    );
    this.name = "OfflineUnavailableError";
  }
}

/** Runs one offline request; the record is returned even when the simulator throws (error set, response null). */
export async function runOfflineCall(req: LlmChatRequest): Promise<{ record: LlmCallRecord; text: string | null; error: Error | null }> {
  const startedAt = new Date();
  const t0 = performance.now();
  let text: string | null = null;
  let error: Error | null = null;
  try {
    if (!req.offline) throw new OfflineUnavailableError(req.role);
    text = await req.offline();
  } catch (e) {
    error = e instanceof Error ? e : new Error(String(e));
  }
  const record: LlmCallRecord = {
    id: randomUUID(),
    role: req.role,
    model: OFFLINE_MODEL,
    endpoint: OFFLINE_MODEL,
    request: {
      messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
      params: req.responseFormat === "json" ? { response_format: "json" } : {},
    },
    response: text === null ? null : { text, finishReason: "stop" },
    latencyMs: performance.now() - t0,
    promptTokens: req.messages.reduce((n, m) => n + roughTokens(m.content), 0),
    completionTokens: text === null ? 0 : roughTokens(text),
    costUsd: 0,
    attempt: 1,
    error: error ? error.message : text !== null ? (req.validate?.(text) ?? null) : null,
    cached: false,
    turn: req.turn ?? null,
    startedAt: startedAt.toISOString(),
  };
  return { record, text, error };
}

/** An LlmChat that serves every role offline — what tests and keyless runs use. */
export function createOfflineLlm(onCall?: (record: LlmCallRecord) => void): LlmChat {
  return {
    async chat(req: LlmChatRequest): Promise<LlmChatResponse> {
      const { record, text, error } = await runOfflineCall(req);
      onCall?.(record);
      if (error || text === null) throw error ?? new OfflineUnavailableError(req.role);
      return { text, callId: record.id };
    },
  };
}
