/**
 * Runs: listing and reading. Business rules live here; routers only validate input and call one function.
 */
import type { PrismaClient } from "../../db/client";
import type { Prisma, RunStatus } from "../../generated/prisma/client";
import { notFound } from "../errors";
import { configLeaves, type ConfigLeaves } from "../../lib/config-columns";
import { markSilentExternalRuns } from "./ingest-staleness";
import { isWarmupProgress, WARMUP_EVENT_KIND, type WarmupProgress } from "../../lib/warmup-progress";
import { getSlurmJobView } from "./slurm-jobs";
import { cleanRunNotes } from "../../lib/run-notes";

export interface ListRunsInput {
  status?: RunStatus[];
  environment?: string;
  tag?: string;
  search?: string;
  limit: number;
  cursor?: string;
}

export async function listRuns(db: PrismaClient, input: ListRunsInput) {
  await markSilentExternalRuns(db);
  const where: Prisma.RunWhereInput = {
    ...(input.status?.length ? { status: { in: input.status } } : {}),
    ...(input.environment ? { environment: input.environment } : {}),
    ...(input.tag ? { tags: { has: input.tag } } : {}),
    // The search box finds a run by its name, by one of its tags or by words in its notes (both editable after launch).
    ...(input.search
      ? {
          OR: [
            { name: { contains: input.search, mode: "insensitive" as const } },
            { tags: { has: input.search.trim() } },
            { notes: { contains: input.search.trim(), mode: "insensitive" as const } },
          ],
        }
      : {}),
  };
  const rows = await db.run.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
    omit: { config: true },
  });
  const hasMore = rows.length > input.limit;
  const items = hasMore ? rows.slice(0, input.limit) : rows;
  return { items, nextCursor: hasMore ? items[items.length - 1].id : null };
}

export async function getRun(db: PrismaClient, id: string) {
  await markSilentExternalRuns(db);
  const run = await db.run.findUnique({ where: { id } });
  if (!run) throw notFound("Run", id);
  return { ...run, slurm: await getSlurmJobView(db, id) };
}

/**
 * The scalar settings of each listed run's config by path ("grpo.learningRate" → 0.001): the runs table's config
 * columns. Configs hold no secrets (API keys are referenced by variable name only).
 */
export async function getRunConfigLeaves(db: PrismaClient, ids: string[]): Promise<Record<string, ConfigLeaves>> {
  const rows = await db.run.findMany({ where: { id: { in: ids } }, select: { id: true, config: true } });
  return Object.fromEntries(rows.map((r) => [r.id, configLeaves(r.config)]));
}

/** Distinct environments and tags, for the runs list filters. */
export async function getRunFacets(db: PrismaClient) {
  const [envs, tags] = await Promise.all([
    db.run.findMany({ distinct: ["environment"], select: { environment: true }, orderBy: { environment: "asc" } }),
    db.$queryRaw<{ tag: string }[]>`SELECT DISTINCT unnest(tags) AS tag FROM "Run" ORDER BY tag`,
  ]);
  return { environments: envs.map((e) => e.environment), tags: tags.map((t) => t.tag) };
}

export async function listRunEvents(
  db: PrismaClient,
  input: { runId: string; minLevel?: "debug" | "info" | "warn" | "error"; limit: number; before?: number },
) {
  const levels = ["debug", "info", "warn", "error"] as const;
  const from = levels.indexOf(input.minLevel ?? "info");
  const rows = await db.runEvent.findMany({
    where: { runId: input.runId, level: { in: [...levels.slice(from)] }, ...(input.before ? { id: { lt: input.before } } : {}) },
    orderBy: { id: "desc" },
    take: input.limit + 1,
  });
  const hasMore = rows.length > input.limit;
  const items = hasMore ? rows.slice(0, input.limit) : rows;
  return { items, nextBefore: hasMore ? items[items.length - 1].id : null };
}

/** The run's SFT warm-up as the worker last reported it (lib/warmup-progress.ts); null for a run without one. */
export async function getRunWarmup(db: PrismaClient, runId: string): Promise<WarmupProgress | null> {
  const row = await db.runEvent.findFirst({
    where: { runId, data: { path: ["kind"], equals: WARMUP_EVENT_KIND } },
    orderBy: { id: "desc" },
    select: { data: true },
  });
  return row && isWarmupProgress(row.data) ? row.data : null;
}

/**
 * Seconds the run spent training: its warm-up plus each recorded step's own time (time/step_s, or its parts for steps
 * recorded before that metric existed) and its recording. Unlike startedAt → finishedAt this leaves out time spent
 * queued, stopped or waiting to be cancelled ("1h 6m" for two minutes of training). null when no step has timings.
 */
export async function getRunTrainingSeconds(db: PrismaClient, runId: string): Promise<number | null> {
  const [row] = await db.$queryRaw<{ seconds: number | null }[]>`
    WITH per_step AS (
      SELECT step,
             coalesce(max(value) FILTER (WHERE key = 'time/step_s'),
                      sum(value) FILTER (WHERE key IN ('time/rollout_s', 'time/update_s', 'time/checkpoint_s')))
               + coalesce(max(value) FILTER (WHERE key = 'time/record_s'), 0)
               + coalesce(max(value) FILTER (WHERE key = 'time/sft_s'), 0) AS seconds
        FROM "MetricPoint"
       WHERE "runId" = ${runId}
         AND key IN ('time/step_s', 'time/rollout_s', 'time/update_s', 'time/checkpoint_s', 'time/record_s', 'time/sft_s')
       GROUP BY step
    )
    SELECT sum(seconds)::float8 AS seconds FROM per_step`;
  return row?.seconds ?? null;
}

/**
 * A run's tags after launch (grouping by seed, marking a baseline): the runs table shows them and its tag filter
 * finds them. Whitespace trimmed, duplicates dropped; the launch config keeps the tags it was launched with.
 */
export async function setRunTags(db: PrismaClient, id: string, tags: string[]) {
  const clean = [...new Set(tags.map((t) => t.trim()).filter(Boolean))];
  const updated = await db.run.updateMany({ where: { id }, data: { tags: clean } });
  if (updated.count === 0) throw notFound("Run", id);
  return { id, tags: clean };
}

/** A run's notes, replaced at any time (lib/run-notes.ts); an empty note removes it. */
export async function setRunNotes(db: PrismaClient, id: string, notes: string) {
  const clean = cleanRunNotes(notes);
  const updated = await db.run.updateMany({ where: { id }, data: { notes: clean } });
  if (updated.count === 0) throw notFound("Run", id);
  return { id, notes: clean };
}
