/**
 * LLM calls that belong to no recorded trajectory: those of an evaluation task cut short by the cost ceiling or a
 * stop. The task itself is not recorded (a resume plays it again), but its calls were made and billed, so they are
 * kept — with no trajectory — and count in the run's cost (server/services/evaluations.ts) and in the ceiling of a
 * resumed run.
 */
import type { PrismaClient } from "../../generated/prisma/client";
import type { LlmCallRecord } from "../../lib/conversation";
import { insertJsonRows } from "../../db/bulk-insert";
import { storable } from "../../lib/storable";
import { llmCallRow } from "./llm-call-row";

export async function recordUnattachedCalls(db: PrismaClient, runId: string, calls: readonly LlmCallRecord[]): Promise<void> {
  if (calls.length === 0) return;
  const rows = storable(calls.map((c) => llmCallRow(c, runId, null))) as unknown as Record<string, unknown>[];
  await db.$transaction((tx) => insertJsonRows(tx, "LlmCall", rows));
}

/** What the run's calls outside any trajectory cost. */
export async function unattachedCostUsd(db: PrismaClient, runId: string): Promise<number> {
  const sum = await db.llmCall.aggregate({ where: { runId, trajectoryId: null }, _sum: { costUsd: true } });
  return sum._sum.costUsd ?? 0;
}
