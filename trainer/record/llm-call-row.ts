/**
 * An LLM call as a row of the LlmCall table: one mapping for the calls recorded with a training step
 * (record-step.ts) and those a re-scoring job makes (rescore/execute.ts). Timestamps are ISO strings in UTC and
 * latency whole milliseconds, as both the bulk insert and Prisma accept them.
 */
import type { LlmCallRecord } from "../../lib/conversation";

/** The record plus the row's foreign keys. */
export type LlmCallRow = LlmCallRecord & { runId: string; trajectoryId: string | null };

/** `trajectoryId` null: a call of an evaluation task cut short, kept for its cost (unattached-calls.ts). */
export function llmCallRow(c: LlmCallRecord, runId: string, trajectoryId: string | null): LlmCallRow {
  return { ...c, runId, trajectoryId, latencyMs: Math.round(c.latencyMs), startedAt: new Date(c.startedAt).toISOString() };
}
