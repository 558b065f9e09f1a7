/**
 * Streams a run's trajectories as JSONL in the Simia-RL record shape (lib/simia-record.ts), one line per
 * trajectory. Reads in keyset pages of BATCH rows (with their LLM calls) so a run with a million trajectories is
 * exported in constant memory and the first line leaves the server before the last row is read.
 */
import { toLlmCallRecord } from "./llm-call-record";
import type { PrismaClient } from "../../db/client";
import type { Prisma } from "../../generated/prisma/client";
import type { ConversationMessage } from "../../lib/conversation";
import { toSimiaRecord } from "../../lib/simia-record";
import { runFacts, simiaPlacement, type RunFacts } from "./simia-export";
import { assertRunExists } from "./run-lifecycle";

const BATCH = 50;

export interface ExportFilters {
  runId: string;
  split?: string;
  stepMin?: number;
  stepMax?: number;
}

type Row = Prisma.TrajectoryGetPayload<{ include: { llmCalls: true; group: { select: { task: true; indexInStep: true } } } }>;

function toLine(t: Row, run: RunFacts): string {
  const messages = Array.isArray(t.conversation)
    ? (t.conversation.filter((m) => m && typeof m === "object") as unknown as ConversationMessage[])
    : [];
  const calls = [...t.llmCalls].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || a.attempt - b.attempt).map(toLlmCallRecord);
  const unscorable = t.status === "unscored" || t.status === "error";
  const record = toSimiaRecord({
    messages,
    evaluation: unscorable ? { reward: null, reasoning: t.reasoning ?? t.error ?? "" } : { reward: t.reward, reasoning: t.reasoning ?? "" },
    endReason: t.endReason ?? t.status,
    llmCalls: calls,
    ...simiaPlacement(t, run),
    timestamp: t.createdAt.toISOString(),
  });
  return `${JSON.stringify({ ...record, run_id: t.runId, trajectory_id: t.id, step: t.step, split: t.split })}\n`;
}

/** JSONL lines in training order (step, then id). Throws NOT_FOUND before the first line if the run is unknown. */
export async function* exportRunJsonl(db: PrismaClient, filters: ExportFilters): AsyncGenerator<string> {
  await assertRunExists(db, filters.runId);
  const run = runFacts((await db.run.findUnique({ where: { id: filters.runId }, select: { config: true } }))?.config);
  const where: Prisma.TrajectoryWhereInput = {
    runId: filters.runId,
    ...(filters.split ? { split: filters.split } : {}),
    ...(filters.stepMin !== undefined || filters.stepMax !== undefined ? { step: { gte: filters.stepMin, lte: filters.stepMax } } : {}),
  };
  let cursor: string | undefined;
  for (;;) {
    const rows = await db.trajectory.findMany({
      where,
      include: { llmCalls: true, group: { select: { task: true, indexInStep: true } } },
      orderBy: [{ step: "asc" }, { id: "asc" }],
      take: BATCH,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
    });
    for (const row of rows) yield toLine(row, run);
    if (rows.length < BATCH) return;
    cursor = rows[rows.length - 1].id;
  }
}
