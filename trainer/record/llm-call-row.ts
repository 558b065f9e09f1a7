/**
 * An LLM call as a row of the LlmCall table: one mapping for the calls recorded with a training step
 * (record-step.ts) and those a re-scoring job makes (rescore/execute.ts). Timestamps are ISO strings in UTC and
 * latency whole milliseconds, as both the bulk insert and Prisma accept them.
 */
import type { LlmCallRecord } from "../../lib/conversation";

export interface LlmCallRow {
  id: string;
  runId: string;
  trajectoryId: string;
  turn: number | null;
  role: LlmCallRecord["role"];
  model: string;
  endpoint: string;
  request: LlmCallRecord["request"];
  response: LlmCallRecord["response"];
  latencyMs: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  attempt: number;
  error: string | null;
  cached: boolean;
  startedAt: string;
}

export function llmCallRow(c: LlmCallRecord, runId: string, trajectoryId: string): LlmCallRow {
  return {
    id: c.id,
    runId,
    trajectoryId,
    turn: c.turn,
    role: c.role,
    model: c.model,
    endpoint: c.endpoint,
    request: c.request,
    response: c.response,
    latencyMs: Math.round(c.latencyMs),
    promptTokens: c.promptTokens,
    completionTokens: c.completionTokens,
    costUsd: c.costUsd,
    attempt: c.attempt,
    error: c.error,
    cached: c.cached,
    startedAt: new Date(c.startedAt).toISOString(),
  };
}
