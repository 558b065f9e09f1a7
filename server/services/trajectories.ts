/**
 * Trajectories: the browser's filtered, sorted, paginated list, one trajectory with everything the inspector
 * shows, its neighbours in the browser's order (keyboard navigation), a task's reward per step, and the
 * Simia-RL export. Lists select summary columns only: conversations can be megabytes and are read one at a time.
 */
import { hasPolicyTokens } from "./policy-tokens";
import { rewardContextOf, rewardFormula } from "../../lib/reward-formulas";
import { toLlmCallRecord } from "./llm-call-record";
import { Prisma, type TrajectoryStatus } from "../../generated/prisma/client";
import type { ConversationMessage, LlmCallRecord } from "../../lib/conversation";
import { toSimiaRecord, type SimiaRecord } from "../../lib/simia-record";
import { runFacts, simiaPlacement } from "./simia-export";
import type { PrismaClient } from "../../db/client";
import { AppError, notFound } from "../errors";

export const TRAJECTORY_SORTS = ["step", "reward", "advantage", "turns"] as const;
export type TrajectorySort = (typeof TRAJECTORY_SORTS)[number];

export interface TrajectoryFilters {
  runId: string;
  split?: string;
  stepMin?: number;
  stepMax?: number;
  rewardMin?: number;
  rewardMax?: number;
  status?: TrajectoryStatus[];
  taskId?: string;
  /** Case-insensitive text anywhere in the messages' content or tool calls. */
  text?: string;
  /** How the episode ended (its end reason, or its status when none was recorded). */
  endReason?: string;
  /** Case-insensitive text in the judge's (or environment's) reasoning: the verdict. */
  verdict?: string;
  /** A reward component the trajectory has; with componentMin, its value must be at least that. */
  component?: string;
  componentMin?: number;
  sort: TrajectorySort;
  dir: "asc" | "desc";
}

export interface TrajectorySummary {
  id: string;
  groupId: string;
  groupIndexInStep: number;
  step: number;
  split: string;
  taskId: string;
  indexInGroup: number;
  reward: number | null;
  advantage: number | null;
  status: TrajectoryStatus;
  endReason: string | null;
  error: string | null;
  numTurns: number;
  responseTokens: number;
  rewardComponents: Record<string, number | null>;
  /** Start of the first non-system message, so rows can be told apart at a glance. */
  preview: string | null;
}

const SORT_COLUMN: Record<TrajectorySort, string> = {
  step: `t."step"`,
  reward: `t."reward"`,
  advantage: `t."advantage"`,
  turns: `t."numTurns"`,
};

/** Escape LIKE wildcards so a search for "50%" or "get_reservation" means those characters literally. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function whereSql(f: TrajectoryFilters): Prisma.Sql {
  const parts: Prisma.Sql[] = [Prisma.sql`t."runId" = ${f.runId}`];
  if (f.split) parts.push(Prisma.sql`t."split" = ${f.split}`);
  if (f.stepMin !== undefined) parts.push(Prisma.sql`t."step" >= ${f.stepMin}`);
  if (f.stepMax !== undefined) parts.push(Prisma.sql`t."step" <= ${f.stepMax}`);
  // A reward bound excludes unscored rows (reward NULL): they have no reward to be within a range.
  if (f.rewardMin !== undefined) parts.push(Prisma.sql`t."reward" >= ${f.rewardMin}`);
  if (f.rewardMax !== undefined) parts.push(Prisma.sql`t."reward" <= ${f.rewardMax}`);
  if (f.status?.length) parts.push(Prisma.sql`t."status"::text = ANY(${f.status})`);
  if (f.taskId) parts.push(Prisma.sql`t."taskId" = ${f.taskId}`);
  if (f.endReason) parts.push(Prisma.sql`COALESCE(t."endReason", t."status"::text) = ${f.endReason}`);
  if (f.verdict) parts.push(Prisma.sql`t."reasoning" ILIKE ${likePattern(f.verdict)}`);
  if (f.component) {
    parts.push(Prisma.sql`(t."rewardComponents" -> ${f.component}) IS NOT NULL`);
    // Only numbers compare (a null component — unscored — never passes a bound, as a null reward does not).
    if (f.componentMin !== undefined)
      parts.push(
        Prisma.sql`jsonb_typeof(t."rewardComponents"->${f.component}) = 'number' AND (t."rewardComponents"->>${f.component})::float8 >= ${f.componentMin}`,
      );
  }
  if (f.text) {
    // Scaling: this detoasts and scans every conversation of the run that passed the other filters (no index can
    // serve a substring match on JSON); fine for tens of thousands of trajectories (about a second per ~1 GB of
    // conversation). Beyond that, add a generated text column with a pg_trgm GIN index and match on it.
    const pattern = likePattern(f.text);
    parts.push(Prisma.sql`EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(t."conversation") = 'array' THEN t."conversation" ELSE '[]'::jsonb END) m
      WHERE m->>'content' ILIKE ${pattern} OR (m->'toolCalls')::text ILIKE ${pattern})`);
  }
  return Prisma.join(parts, " AND ");
}

/**
 * Total order (ties broken down to the id) so offset pages never repeat or skip a row. Unscored rows sort last.
 * Each order matches an index so the first pages of a 1M-trajectory run come from an index scan, not a sort:
 * step → (runId, step) plus an incremental sort within the step; reward → (runId, reward [DESC] NULLS LAST, step, id).
 * A step is never NULL, so no NULLS clause there (it would stop Postgres from using the index).
 */
function orderSql(f: TrajectoryFilters): Prisma.Sql {
  const dir = f.dir === "asc" ? "ASC" : "DESC";
  if (f.sort === "step") return Prisma.raw(`t."step" ${dir}, g."indexInStep" ASC, t."indexInGroup" ASC, t."id" ASC`);
  return Prisma.raw(`${SORT_COLUMN[f.sort]} ${dir} NULLS LAST, t."step" ASC, t."id" ASC`);
}

/** Counting every match of a million-row run costs more than the page itself; past this, totals are "at least". */
export const TOTAL_COUNT_CAP = 10_000;

interface SummaryRow extends Omit<TrajectorySummary, "rewardComponents"> {
  rewardComponents: unknown;
}

function toSummary(row: SummaryRow): TrajectorySummary {
  const rc =
    row.rewardComponents && typeof row.rewardComponents === "object" ? (row.rewardComponents as Record<string, number | null>) : {};
  return { ...row, rewardComponents: rc };
}

export async function listTrajectories(db: PrismaClient, input: TrajectoryFilters & { limit: number; offset: number }) {
  const where = whereSql(input);
  const [rows, count] = await Promise.all([
    db.$queryRaw<SummaryRow[]>`
      SELECT t."id", t."groupId", g."indexInStep" AS "groupIndexInStep", t."step", t."split", t."taskId", t."indexInGroup",
             t."reward", t."advantage", t."status"::text AS "status", t."endReason", left(t."error", 300) AS "error",
             t."numTurns", t."responseTokens", t."rewardComponents",
             left((SELECT m->>'content' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(t."conversation") = 'array' THEN t."conversation" ELSE '[]'::jsonb END) m
                   WHERE m->>'source' IS DISTINCT FROM 'system' LIMIT 1), 160) AS "preview"
      FROM "Trajectory" t JOIN "Group" g ON g."id" = t."groupId"
      WHERE ${where}
      ORDER BY ${orderSql(input)}
      LIMIT ${input.limit} OFFSET ${input.offset}`,
    db.$queryRaw<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM (SELECT 1 FROM "Trajectory" t WHERE ${where} LIMIT ${TOTAL_COUNT_CAP + 1}) capped`,
  ]);
  const n = count[0]?.n ?? 0;
  return {
    items: rows.map(toSummary),
    total: Math.min(n, TOTAL_COUNT_CAP),
    totalIsLowerBound: n > TOTAL_COUNT_CAP,
    limit: input.limit,
    offset: input.offset,
  };
}

/**
 * Previous and next trajectory around `id` in the browser's order and filters, and its 1-based position. When
 * `id` is not in the filtered set (opened from elsewhere), all are null. Window functions over the filtered set:
 * linear in the number of matching rows, which the filters already bound to one run.
 */
export async function getTrajectoryNeighbors(db: PrismaClient, input: TrajectoryFilters & { id: string }) {
  if (input.sort === "step") return stepOrderNeighbors(db, input);
  const order = orderSql(input);
  const rows = await db.$queryRaw<{ prevId: string | null; nextId: string | null; position: number; total: number }[]>`
    WITH ordered AS (
      SELECT t."id",
             lag(t."id") OVER (ORDER BY ${order}) AS "prevId",
             lead(t."id") OVER (ORDER BY ${order}) AS "nextId",
             (row_number() OVER (ORDER BY ${order}))::int AS "position",
             (count(*) OVER ())::int AS "total"
      FROM "Trajectory" t JOIN "Group" g ON g."id" = t."groupId"
      WHERE ${whereSql(input)}
    )
    SELECT "prevId", "nextId", "position", "total" FROM ordered WHERE "id" = ${input.id}`;
  const row = rows[0];
  return row ? { ...row, positionIsLowerBound: false, totalIsLowerBound: false } : NO_NEIGHBORS;
}

const NO_NEIGHBORS = { prevId: null, nextId: null, position: null, total: null, positionIsLowerBound: false, totalIsLowerBound: false };

async function cappedCount(db: PrismaClient, where: Prisma.Sql): Promise<{ n: number; capped: boolean }> {
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM (SELECT 1 FROM "Trajectory" t JOIN "Group" g ON g."id" = t."groupId" WHERE ${where} LIMIT ${TOTAL_COUNT_CAP + 1}) capped`;
  return { n: Math.min(row.n, TOTAL_COUNT_CAP), capped: row.n > TOTAL_COUNT_CAP };
}

/**
 * Neighbours in the default (step) order by keyset lookups — the row just before and after the current one, each an
 * index probe — instead of numbering the whole filtered set (seconds on a 1M-trajectory run). Within a step the
 * order is (group index, sample index, id) ascending whatever the step direction.
 */
async function stepOrderNeighbors(db: PrismaClient, input: TrajectoryFilters & { id: string }) {
  const where = whereSql(input);
  const [cur] = await db.$queryRaw<{ step: number; g: number; i: number }[]>`
    SELECT t."step", g."indexInStep" AS g, t."indexInGroup" AS i FROM "Trajectory" t JOIN "Group" g ON g."id" = t."groupId"
    WHERE ${where} AND t."id" = ${input.id}`;
  if (!cur) return NO_NEIGHBORS;
  const desc = input.dir !== "asc";
  const tie = Prisma.sql`(g."indexInStep", t."indexInGroup", t."id")`;
  const at = Prisma.sql`(${cur.g}::int, ${cur.i}::int, ${input.id})`;
  const earlierStep = desc ? Prisma.sql`t."step" > ${cur.step}` : Prisma.sql`t."step" < ${cur.step}`;
  const laterStep = desc ? Prisma.sql`t."step" < ${cur.step}` : Prisma.sql`t."step" > ${cur.step}`;
  const first = async (cond: Prisma.Sql, order: string) => {
    const rows = await db.$queryRaw<{ id: string }[]>`
      SELECT t."id" FROM "Trajectory" t JOIN "Group" g ON g."id" = t."groupId" WHERE ${where} AND ${cond} ORDER BY ${Prisma.raw(order)} LIMIT 1`;
    return rows[0]?.id ?? null;
  };
  const back = `g."indexInStep" DESC, t."indexInGroup" DESC, t."id" DESC`;
  const fwd = `g."indexInStep" ASC, t."indexInGroup" ASC, t."id" ASC`;
  const [prevSame, prevOther, nextSame, nextOther, before, total] = await Promise.all([
    first(Prisma.sql`t."step" = ${cur.step} AND ${tie} < ${at}`, back),
    first(earlierStep, `t."step" ${desc ? "ASC" : "DESC"}, ${back}`),
    first(Prisma.sql`t."step" = ${cur.step} AND ${tie} > ${at}`, fwd),
    first(laterStep, `t."step" ${desc ? "DESC" : "ASC"}, ${fwd}`),
    cappedCount(db, Prisma.sql`${where} AND (${earlierStep} OR (t."step" = ${cur.step} AND ${tie} < ${at}))`),
    cappedCount(db, where),
  ]);
  return {
    prevId: prevSame ?? prevOther,
    nextId: nextSame ?? nextOther,
    position: before.n + 1,
    total: total.n,
    positionIsLowerBound: before.capped,
    totalIsLowerBound: total.capped,
  };
}

function asConversation(value: unknown): ConversationMessage[] {
  // Stored JSON written by the trainer; a malformed row should still open (showing nothing) rather than crash.
  return Array.isArray(value) ? (value.filter((m) => m && typeof m === "object") as ConversationMessage[]) : [];
}

export async function getTrajectory(db: PrismaClient, input: { runId: string; id: string }) {
  const t = await db.trajectory.findUnique({
    where: { id: input.id },
    omit: { ingestHash: true },
    include: {
      group: {
        select: { id: true, step: true, indexInStep: true, split: true, task: true, rewardMean: true, rewardStd: true, dropped: true },
      },
      run: { select: { id: true, name: true, config: true } },
      llmCalls: { orderBy: [{ startedAt: "asc" }, { turn: "asc" }, { attempt: "asc" }] },
    },
  });
  if (!t || t.runId !== input.runId) throw notFound("Trajectory", input.id);
  const context = rewardContextOf(t.run.config, t.group.task);
  const llmCalls: LlmCallRecord[] = t.llmCalls.map(toLlmCallRecord);
  const policyTokens = await hasPolicyTokens(db, t.id);
  const { llmCalls: _rows, conversation, rewardComponents, run, ...rest } = t;
  void _rows;
  return {
    ...rest,
    conversation: asConversation(conversation),
    rewardComponents: (rewardComponents && typeof rewardComponents === "object" ? rewardComponents : {}) as Record<string, number | null>,
    llmCalls,
    run: { id: run.id, name: run.name },
    /** How the environment computes the reward and which components are its terms (null: not described). */
    rewardFormula: context ? rewardFormula(context) : null,
    /** Whether the policy view (getPolicyTokens) has this trajectory's tokens. */
    hasPolicyTokens: policyTokens,
  };
}

export async function exportTrajectorySimia(db: PrismaClient, input: { runId: string; id: string }): Promise<SimiaRecord> {
  const t = await getTrajectory(db, input);
  const placed = await db.trajectory.findUniqueOrThrow({
    where: { id: t.id },
    select: { group: { select: { task: true, indexInStep: true } }, run: { select: { config: true } } },
  });
  return toSimiaRecord({
    messages: t.conversation,
    evaluation:
      t.status === "unscored" || t.status === "error"
        ? { reward: null, reasoning: t.reasoning ?? t.error ?? "" }
        : { reward: t.reward, reasoning: t.reasoning ?? "" },
    endReason: t.endReason ?? t.status,
    llmCalls: t.llmCalls,
    ...simiaPlacement({ ...t, group: placed.group }, runFacts(placed.run.config)),
    timestamp: t.createdAt.toISOString(),
  });
}

/** Distinct task ids, end reasons and reward components, and the step range of a run's trajectories, for the browser's filter controls. */
export async function getTrajectoryFacets(db: PrismaClient, runId: string) {
  const [tasks, ends, components, range] = await Promise.all([
    db.$queryRaw<{ taskId: string }[]>`SELECT DISTINCT "taskId" FROM "Trajectory" WHERE "runId" = ${runId} ORDER BY "taskId" LIMIT 1000`,
    db.$queryRaw<{ endReason: string }[]>`
      SELECT DISTINCT COALESCE("endReason", "status"::text) AS "endReason" FROM "Trajectory" WHERE "runId" = ${runId} ORDER BY 1 LIMIT 100`,
    db.$queryRaw<{ key: string }[]>`
      SELECT DISTINCT jsonb_object_keys(CASE WHEN jsonb_typeof("rewardComponents") = 'object' THEN "rewardComponents" ELSE '{}'::jsonb END) AS key
      FROM "Trajectory" WHERE "runId" = ${runId} ORDER BY 1 LIMIT 200`,
    db.trajectory.aggregate({ where: { runId }, _min: { step: true }, _max: { step: true }, _count: true }),
  ]);
  return {
    taskIds: tasks.map((t) => t.taskId),
    endReasons: ends.map((e) => e.endReason),
    components: components.map((c) => c.key),
    stepMin: range._min.step,
    stepMax: range._max.step,
    total: range._count,
  };
}

export interface TaskStepPoint {
  step: number;
  count: number;
  /** Mean of the scored samples; null when none at this step was scored (drawn as a gap, never as 0). */
  rewardMean: number | null;
  rewardMin: number | null;
  rewardMax: number | null;
  unscored: number;
  turnsMean: number;
}

/** One task's reward per training step, with the task's own description from its latest group. */
export async function getTaskHistory(db: PrismaClient, input: { runId: string; taskId: string; split?: string }) {
  const split = input.split ?? "train";
  const [points, latest] = await Promise.all([
    db.$queryRaw<TaskStepPoint[]>`
      SELECT "step", count(*)::int AS "count", avg("reward") AS "rewardMean", min("reward") AS "rewardMin", max("reward") AS "rewardMax",
             (count(*) FILTER (WHERE "reward" IS NULL))::int AS "unscored", avg("numTurns")::float8 AS "turnsMean"
      FROM "Trajectory" WHERE "runId" = ${input.runId} AND "taskId" = ${input.taskId} AND "split" = ${split}
      GROUP BY "step" ORDER BY "step"`,
    db.group.findFirst({ where: { runId: input.runId, taskId: input.taskId }, orderBy: { step: "desc" }, select: { task: true } }),
  ]);
  if (points.length === 0 && !latest) {
    throw new AppError("NOT_FOUND", `Task "${input.taskId}" has no trajectories in run "${input.runId}" (split ${split}).`);
  }
  return { taskId: input.taskId, split, task: latest?.task ?? null, points };
}

/** The run a trajectory belongs to, so `/trajectories/<id>` links work without knowing the run. */
export async function locateTrajectory(db: PrismaClient, id: string) {
  const t = await db.trajectory.findUnique({ where: { id }, select: { runId: true } });
  if (!t) throw notFound("Trajectory", id);
  return { runId: t.runId, id };
}
