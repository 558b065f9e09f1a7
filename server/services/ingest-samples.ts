/**
 * Samples of an external run, written in bulk and upserted by the sender's id (as Langfuse does): a sample re-sent
 * unchanged is left alone, one re-sent with new content is rewritten in place (moved to another group when its
 * step or group key changed), a new one is stored. The caller holds the run's row lock, which makes group and index
 * assignment deterministic.
 *
 * Every step is a set-based statement over the whole batch (lookups by unnest arrays, rows as one JSON parameter),
 * so 16,000 samples cost a handful of round trips rather than three queries each.
 */
import { createHash } from "node:crypto";
import type { Prisma } from "../../generated/prisma/client";
import type { ConversationMessage } from "../../lib/conversation";
import { groupKeyOf, type ParsedTrajectory } from "../../lib/ingest";
import { insertJsonRows, replaceNulCharacters } from "../../db/bulk-insert";

type Tx = Prisma.TransactionClient;

/** Rows per INSERT: keeps each JSON parameter to a few MB however large the batch. */
const ROWS_PER_STATEMENT = 2_000;

export interface SampleCounts {
  stored: number;
  updated: number;
  unchanged: number;
}

/** A stable row id for the sender's sample id, so a re-sent sample finds the row it already has. */
export function externalTrajectoryId(runId: string, senderId: string): string {
  return `x${createHash("sha256").update(`${runId}\0${senderId}`).digest("hex").slice(0, 24)}`;
}

const sampleHash = (t: ParsedTrajectory) => createHash("sha256").update(JSON.stringify(t)).digest("hex");
const groupSlot = (step: number, split: string, key: string) => `${step}\u0000${split}\u0000${key}`;

function sourceOf(role: string): ConversationMessage["source"] {
  return role === "assistant" ? "policy" : role === "tool" ? "tool" : role === "system" ? "system" : "user_simulator";
}

/** Our stored message shape; fields a newer client sent that we do not know are kept as they came. */
export function conversationOf(t: ParsedTrajectory): ConversationMessage[] {
  let turn = 0;
  let seenPolicy = false;
  return t.conversation.map((m) => {
    const role = m.role === "developer" ? "system" : m.role; // OpenAI's newer name for system instructions
    const source = m.source ?? sourceOf(role);
    // Observations belong to the policy turn that answers them: the turn advances after each policy message.
    if (source === "policy" && seenPolicy && m.turn === undefined) turn++;
    if (source === "policy") seenPolicy = true;
    return { ...m, role, source, turn: m.turn ?? turn } as ConversationMessage;
  });
}

function statusOf(t: ParsedTrajectory): "ok" | "unscored" | "error" {
  if (t.error) return "error";
  return t.reward === null ? "unscored" : "ok";
}

async function chunked(rows: Record<string, unknown>[], write: (part: Record<string, unknown>[]) => Promise<unknown>) {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) await write(rows.slice(i, i + ROWS_PER_STATEMENT));
}

export async function upsertExternalSamples(tx: Tx, runId: string, samples: ParsedTrajectory[]): Promise<SampleCounts> {
  const ids = samples.map((t) => externalTrajectoryId(runId, t.id));
  const hashes = samples.map(sampleHash);
  const existing = new Map(
    (
      await tx.$queryRaw<{ id: string; ingestHash: string | null; groupId: string; indexInGroup: number }[]>`
        SELECT id, "ingestHash", "groupId", "indexInGroup" FROM "Trajectory" WHERE id = ANY(${ids}::text[]) AND "runId" = ${runId}`
    ).map((r) => [r.id, r]),
  );
  const writes = samples
    .map((t, i) => ({ t, id: ids[i], hash: hashes[i], before: existing.get(ids[i]) }))
    .filter((w) => w.before?.ingestHash !== w.hash);
  const unchanged = samples.length - writes.length;
  if (writes.length === 0) return { stored: 0, updated: 0, unchanged };

  const groupOf = await resolveGroups(
    tx,
    runId,
    writes.map((w) => w.t),
  );
  const nextIndex = await nextIndexInGroups(tx, [...new Set(groupOf.values())]);
  const nowIso = new Date().toISOString();
  const rows: Record<string, unknown>[] = [];
  const callRows: Record<string, unknown>[] = [];
  const touchedGroups = new Set<string>();
  for (const { t, id, hash, before } of writes) {
    const groupId = groupOf.get(groupSlot(t.step, t.split, groupKeyOf(t)))!;
    touchedGroups.add(groupId);
    if (before) touchedGroups.add(before.groupId);
    // A rewritten sample keeps its place in its group; one that moved (or is new) takes the next free index.
    const indexInGroup = before?.groupId === groupId ? before.indexInGroup : nextIndex(groupId);
    const conversation = conversationOf(t);
    rows.push({
      id,
      groupId,
      runId,
      step: t.step,
      split: t.split,
      taskId: t.taskId ?? groupKeyOf(t),
      indexInGroup,
      reward: t.reward,
      rewardComponents: t.rewardComponents,
      advantage: t.advantage,
      reasoning: t.reasoning,
      status: statusOf(t),
      endReason: t.endReason,
      error: t.error,
      numTurns: conversation.filter((m) => m.source === "policy").length,
      promptTokens: t.promptTokens,
      responseTokens: t.responseTokens,
      conversation,
      finalState: null,
      expectedState: null,
      ingestHash: hash,
      createdAt: nowIso,
    });
    t.llmCalls.forEach((c, k) =>
      callRows.push({
        id: `${id}-${k}`,
        runId,
        trajectoryId: id,
        turn: c.turn,
        role: c.role,
        model: c.model,
        endpoint: c.endpoint,
        request: { messages: c.messages, params: {} },
        response: c.response === null ? null : { text: c.response },
        latencyMs: c.latencyMs,
        promptTokens: c.promptTokens,
        completionTokens: c.completionTokens,
        costUsd: c.costUsd,
        attempt: 1,
        error: c.error,
        cached: false,
        startedAt: c.startedAt ?? nowIso,
      }),
    );
  }
  const fresh = rows.filter((r) => !existing.has(r.id as string));
  const changed = rows.filter((r) => existing.has(r.id as string));
  await chunked(fresh, (part) => insertJsonRows(tx, "Trajectory", part));
  await chunked(changed, (part) => updateTrajectoryRows(tx, part));
  if (changed.length) await tx.$executeRaw`DELETE FROM "LlmCall" WHERE "trajectoryId" = ANY(${changed.map((r) => r.id as string)}::text[])`;
  await chunked(callRows, (part) => insertJsonRows(tx, "LlmCall", part));
  await refreshGroupStats(tx, [...touchedGroups]);
  return { stored: fresh.length, updated: changed.length, unchanged };
}

/** Rewrites stored samples in place (same id, so re-scorings and links to it stay valid). */
async function updateTrajectoryRows(tx: Tx, rows: Record<string, unknown>[]) {
  const columns = Object.keys(rows[0]).filter((c) => c !== "id" && c !== "runId" && c !== "createdAt");
  const set = columns.map((c) => `"${c}" = r."${c}"`).join(", ");
  await tx.$executeRawUnsafe(
    `UPDATE "Trajectory" t SET ${set} FROM json_populate_recordset(NULL::"Trajectory", $1::json) r WHERE t.id = r.id`,
    JSON.stringify(rows, replaceNulCharacters),
  );
}

/**
 * The group of each sample's (step, split, group key): found, or created with the next index in its step. Returns
 * slot → group id.
 */
async function resolveGroups(tx: Tx, runId: string, samples: ParsedTrajectory[]): Promise<Map<string, string>> {
  const wanted = new Map<string, ParsedTrajectory>();
  for (const t of samples) {
    const slot = groupSlot(t.step, t.split, groupKeyOf(t));
    if (!wanted.has(slot)) wanted.set(slot, t);
  }
  const firsts = [...wanted.values()];
  const found = await tx.$queryRaw<{ id: string; step: number; split: string; taskId: string }[]>`
    SELECT g.id, g.step, g.split, g."taskId" FROM "Group" g
    JOIN unnest(${firsts.map((t) => t.step)}::int[], ${firsts.map((t) => t.split)}::text[], ${firsts.map(groupKeyOf)}::text[])
      AS w(step, split, key) ON g.step = w.step AND g.split = w.split AND g."taskId" = w.key
    WHERE g."runId" = ${runId}`;
  const out = new Map(found.map((g) => [groupSlot(g.step, g.split, g.taskId), g.id]));
  const missing = firsts.filter((t) => !out.has(groupSlot(t.step, t.split, groupKeyOf(t))));
  if (missing.length === 0) return out;
  const steps = [...new Set(missing.map((t) => t.step))];
  const used = await tx.$queryRaw<{ step: number; split: string; top: number }[]>`
    SELECT step, split, max("indexInStep") AS top FROM "Group" WHERE "runId" = ${runId} AND step = ANY(${steps}::int[]) GROUP BY 1, 2`;
  const next = new Map(used.map((u) => [`${u.step}\u0000${u.split}`, u.top + 1]));
  const nowIso = new Date().toISOString();
  const rows = missing.map((t) => {
    const stepSlot = `${t.step}\u0000${t.split}`;
    const indexInStep = next.get(stepSlot) ?? 0;
    next.set(stepSlot, indexInStep + 1);
    const key = groupKeyOf(t);
    const id = `g${createHash("sha256")
      .update(`${runId}\0${groupSlot(t.step, t.split, key)}`)
      .digest("hex")
      .slice(0, 24)}`;
    out.set(groupSlot(t.step, t.split, key), id);
    return { id, runId, step: t.step, split: t.split, indexInStep, taskId: key, task: t.task ?? null, createdAt: nowIso };
  });
  await chunked(rows, (part) => insertJsonRows(tx, "Group", part));
  return out;
}

/** A counter per group continuing after the highest stored index. */
async function nextIndexInGroups(tx: Tx, groupIds: string[]): Promise<(groupId: string) => number> {
  const rows = await tx.$queryRaw<{ groupId: string; top: number }[]>`
    SELECT "groupId", max("indexInGroup") AS top FROM "Trajectory" WHERE "groupId" = ANY(${groupIds}::text[]) GROUP BY 1`;
  const next = new Map(rows.map((r) => [r.groupId, r.top + 1]));
  return (groupId) => {
    const index = next.get(groupId) ?? 0;
    next.set(groupId, index + 1);
    return index;
  };
}

/** Mean and population std of each group's scored rewards (GRPO's statistics; unscored samples left out). */
async function refreshGroupStats(tx: Tx, groupIds: string[]) {
  await tx.$executeRaw`
    UPDATE "Group" g SET "rewardMean" = s.mean, "rewardStd" = s.std
    FROM (
      SELECT ids.id, avg(t.reward) AS mean, stddev_pop(t.reward) AS std
      FROM unnest(${groupIds}::text[]) AS ids(id)
      LEFT JOIN "Trajectory" t ON t."groupId" = ids.id AND t.reward IS NOT NULL
      GROUP BY ids.id
    ) s
    WHERE g.id = s.id`;
}
