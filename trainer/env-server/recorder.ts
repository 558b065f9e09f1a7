/**
 * Records every served episode as a trajectory of an external run, with its conversation, simulator and judge LLM
 * calls, reward components and final/expected state, in the same rows the trainer writes (trainer/record), so the
 * inspector, group view, signals and re-judging work on them unchanged.
 *
 * Writes are batched: a finished episode is queued (a step never waits for the database) and a flush writes up to
 * BATCH episodes in one transaction every FLUSH_MS. What is queued is durable first: with a journal (journal.ts) an
 * episode's start and end are appended and fsynced before the client is answered, and the recorder notes there which
 * episodes reached PostgreSQL, so a crash loses no acknowledged episode. A failed flush keeps its episodes and retries with backoff; past
 * `maxBacklog` queued episodes the server refuses new episodes (503) rather than grow without bound.
 *
 * Several servers may share one database: run, group and trajectory ids are derived from their keys (a retried
 * episode_id is stored once), and a flush locks its runs' rows so group and sample indexes stay unique.
 *
 * Rows go in through the same bulk writer as the trainer's step record (db/bulk-insert.ts); a step's curves are
 * computed here from every episode stored for it (by any server), so they stay right however episodes are spread.
 */
import { createHash } from "node:crypto";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";
import { insertJsonRows } from "../../db/bulk-insert";
import { refreshMetricRollups } from "../../db/metric-rollups";
import { storable } from "../../lib/storable";
import type { Task } from "../envs/types";
import { llmCallRow } from "../record/llm-call-row";
import type { EpisodeTrajectory } from "../rollout/run-episode";
import type { EpisodeJournal } from "./journal";

const BATCH = 128;
const FLUSH_MS = 200;
const MAX_RETRY_MS = 30_000;
/**
 * A step's curves are aggregated from every episode stored for it, which costs in proportion to that step's episodes
 * (a trainer that never sends `step` puts all of them in step 0). Paid on every batch, that made recording slower the
 * longer a server ran; so while episodes keep coming a step's curves are refreshed at most this often, and always by
 * the flush that empties the queue.
 */
const METRICS_REFRESH_MS = 1_000;

/** A (run, step) whose curves need refreshing. */
export interface StepKey {
  runId: string;
  step: number;
}
const stepKeyOf = (s: StepKey) => `${s.runId}\0${s.step}`;

/** The external run an episode belongs to (one per API token and day, or per named experiment). */
export interface RunKey {
  id: string;
  name: string;
  environment: string;
  policyModel: string;
  /** Token name (or "local" on an open loopback server), shown as the launcher. */
  owner: string;
  config: Record<string, unknown>;
}

export interface EpisodeRecord {
  trajectoryId: string;
  run: RunKey;
  step: number;
  split: "train" | "eval";
  groupKey: string;
  task: Task;
  trajectory: EpisodeTrajectory;
  /** The episode's key in the journal, marked stored once written. */
  journalKey?: string;
}

export interface LostSession {
  sessionId: string;
  environment: string;
  taskId: string | null;
  episodeId: string | null;
  /** The trajectory id the client was told (absent in journals of older versions). */
  trajectoryId?: string;
  startedAt: string;
  run: RunKey | null;
}

/** End reasons of an attempt that stopped before the environment ended it: a retry with its episode_id replaces it. */
const UNFINISHED = new Set(["client_ended", "idle_expired", "server_stopped"]);
export const isUnfinished = (endReason: string) => UNFINISHED.has(endReason);

const hash = (...parts: (string | number)[]) => createHash("sha256").update(parts.join("\0")).digest("hex");
export const runIdOf = (ownerKey: string, scope: string) => `oe${hash("run", ownerKey, scope).slice(0, 22)}`;
export const trajectoryIdOf = (runId: string, episodeKey: string) => `ot${hash("trajectory", runId, episodeKey).slice(0, 22)}`;
const groupIdOf = (runId: string, step: number, split: string, key: string) => `og${hash("group", runId, step, split, key).slice(0, 22)}`;

type Tx = Prisma.TransactionClient;

export class EpisodeRecorder {
  private queue: EpisodeRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private failures = 0;
  private written = 0;
  /** Steps written since their curves were last refreshed. */
  private readonly staleSteps = new Map<string, StepKey>();
  private metricsRefreshedAt = 0;

  constructor(
    private readonly db: PrismaClient,
    private readonly opts: { maxBacklog?: number; log?: (line: string) => void; journal?: EpisodeJournal | null } = {},
  ) {}

  /** An episode began: journaled (durably) when there is a journal. */
  async started(key: string, lost: LostSession): Promise<void> {
    await this.opts.journal?.started(key, lost);
  }

  /** An episode ended: journaled (durably) with its record, then queued for PostgreSQL. */
  async ended(key: string, record: EpisodeRecord | null): Promise<void> {
    await this.opts.journal?.ended(key, record);
    if (record) this.enqueue({ ...record, journalKey: key });
  }

  get backlog(): number {
    return this.queue.length;
  }

  get recorded(): number {
    return this.written;
  }

  /**
   * The attempt of `trajectoryId` that was played to the end, if any (queued here, or stored by any server): a retry
   * of its episode_id is refused, since the trajectory a client was told about must be the one stored.
   */
  async finishedAttempt(trajectoryId: string): Promise<{ reward: number | null } | null> {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const r = this.queue[i];
      if (r.trajectoryId === trajectoryId)
        return isUnfinished(r.trajectory.endReason) ? null : { reward: r.trajectory.evaluation?.reward ?? null };
    }
    // Unreachable database: let the attempt play; writeEpisodes still keeps a finished attempt over it.
    const stored = await this.db.trajectory
      .findUnique({ where: { id: trajectoryId }, select: { endReason: true, reward: true } })
      .catch(() => null);
    return stored && !isUnfinished(stored.endReason ?? "") ? { reward: stored.reward } : null;
  }

  /** True when so many episodes wait to be written that new ones should be refused. */
  get overloaded(): boolean {
    return this.queue.length >= (this.opts.maxBacklog ?? 5000);
  }

  enqueue(record: EpisodeRecord): void {
    this.queue.push(record);
    if (this.queue.length >= BATCH) this.schedule(0);
    else this.schedule(FLUSH_MS);
  }

  /** Writes everything queued (shutdown, tests). */
  async drain(): Promise<void> {
    while (this.queue.length || this.writing) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      await (this.writing ?? this.flush());
      if (this.failures > 0 && this.queue.length) throw new Error(`could not record ${this.queue.length} episodes; see the log above`);
    }
  }

  private schedule(ms: number): void {
    if (this.timer || this.writing) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, ms);
    // The server's sockets keep the process alive; a retry alone must not (a test or CLI that gave up can exit).
    this.timer.unref();
  }

  private flush(): Promise<void> {
    if (this.writing || this.queue.length === 0) return this.writing ?? Promise.resolve();
    const batch = this.queue.splice(0, BATCH);
    for (const r of batch) this.staleSteps.set(stepKeyOf({ runId: r.run.id, step: r.step }), { runId: r.run.id, step: r.step });
    const refreshNow = this.queue.length === 0 || Date.now() - this.metricsRefreshedAt >= METRICS_REFRESH_MS;
    const refreshed = refreshNow ? [...this.staleSteps.values()] : [];
    this.writing = writeEpisodes(this.db, batch, refreshed)
      .then(() => {
        this.failures = 0;
        this.written += batch.length;
        this.opts.journal?.stored(batch.flatMap((r) => (r.journalKey ? [r.journalKey] : [])));
        if (!refreshNow) return;
        for (const s of refreshed) this.staleSteps.delete(stepKeyOf(s));
        this.metricsRefreshedAt = Date.now();
      })
      .catch((err: unknown) => {
        this.failures++;
        this.queue.unshift(...batch);
        this.opts.log?.(`recording ${batch.length} episodes failed (attempt ${this.failures}): ${(err as Error).message.split("\n")[0]}`);
      })
      .finally(() => {
        this.writing = null;
        if (this.queue.length) this.schedule(this.failures ? Math.min(MAX_RETRY_MS, 500 * 2 ** this.failures) : 0);
      });
    return this.writing;
  }

  /** Tells each affected run that a restart lost these sessions' episodes (their conversations were in memory). */
  async noteLostSessions(lost: LostSession[]): Promise<void> {
    const withRun = lost.filter((l): l is LostSession & { run: RunKey } => l.run !== null);
    if (!withRun.length) return;
    await this.db.$transaction(async (tx) => {
      await ensureRuns(
        tx,
        withRun.map((l) => l.run),
      );
      await tx.runEvent.createMany({
        data: withRun.map((l) => ({
          runId: l.run.id,
          level: "warn" as const,
          message: `The environment server restarted: session ${l.sessionId} (${l.environment}${l.taskId ? `, task ${l.taskId}` : ""}${l.episodeId ? `, episode ${l.episodeId}` : ""}${l.trajectoryId ? `, trajectory ${l.trajectoryId}` : ""}, started ${l.startedAt}) was lost mid-episode and its episode was not recorded.`,
          data: {
            origin: "env-server",
            sessionId: l.sessionId,
            episodeId: l.episodeId,
            trajectoryId: l.trajectoryId ?? null,
          } as Prisma.InputJsonValue,
        })),
      });
    });
  }
}

/** Creates the runs not stored yet and locks them, with `alsoLock` (runs whose curves this write refreshes). */
async function ensureRuns(tx: Tx, runs: RunKey[], alsoLock: string[] = []): Promise<void> {
  const unique = [...new Map(runs.map((r) => [r.id, r])).values()].sort((a, b) => a.id.localeCompare(b.id));
  await tx.run.createMany({
    data: unique.map((r) => ({
      id: r.id,
      name: r.name,
      status: "running" as const,
      startedAt: new Date(),
      config: storable(r.config) as Prisma.InputJsonValue,
      environment: r.environment,
      policyModel: r.policyModel,
      seed: 0,
      totalSteps: 0,
      tags: ["openenv"],
      source: "openenv",
      launchedBy: "api" as const,
      launchedByName: r.owner,
    })),
    skipDuplicates: true,
  });
  // Locked in id order (two servers flushing the same runs must not deadlock) until the transaction ends.
  const stored = await tx.$queryRaw<{ id: string; environment: string }[]>`
    SELECT id, environment FROM "Run" WHERE id IN (${Prisma.join([...new Set([...unique.map((r) => r.id), ...alsoLock])])}) ORDER BY id FOR UPDATE`;
  for (const row of stored) {
    const envs = new Set(runs.filter((r) => r.id === row.id).map((r) => r.environment));
    if (row.environment !== "mixed" && [...envs].some((e) => e !== row.environment))
      await tx.$executeRaw`UPDATE "Run" SET environment = 'mixed', config = config - 'environment' - 'environmentOptions' WHERE id = ${row.id}`;
  }
}

/**
 * Writes episodes (skipping ones already stored) and refreshes the curves of `refreshSteps` (by default the steps
 * these episodes belong to).
 */
export async function writeEpisodes(
  db: PrismaClient,
  given: EpisodeRecord[],
  refreshSteps: StepKey[] = given.map((r) => ({ runId: r.run.id, step: r.step })),
): Promise<void> {
  await db.$transaction(
    async (tx) => {
      await ensureRuns(
        tx,
        given.map((r) => ({ ...r.run, environment: r.trajectory.envName })),
        refreshSteps.map((s) => s.runId),
      );
      // One record per trajectory id: a later attempt replaces an earlier unfinished one (a retry of its
      // episode_id); an attempt played to the end is stored once.
      const latest = new Map<string, EpisodeRecord>();
      for (const r of given) {
        const before = latest.get(r.trajectoryId);
        if (!before || isUnfinished(before.trajectory.endReason)) latest.set(r.trajectoryId, r);
      }
      const stored = await tx.trajectory.findMany({ where: { id: { in: [...latest.keys()] } }, select: { id: true, endReason: true } });
      const replaced = stored.filter((t) => isUnfinished(t.endReason ?? "")).map((t) => t.id);
      if (replaced.length) await tx.trajectory.deleteMany({ where: { id: { in: replaced } } }); // its calls and scores cascade
      const kept = new Set(stored.filter((t) => !isUnfinished(t.endReason ?? "")).map((t) => t.id));
      const records = [...latest.values()].filter((r) => !kept.has(r.trajectoryId));
      if (!records.length) return await refreshStepMetrics(tx, refreshSteps);
      const groupIds = records.map((r) => groupIdOf(r.run.id, r.step, r.split, r.groupKey));
      await insertGroups(tx, records, groupIds);

      const nextIndex = new Map(
        (
          await tx.$queryRaw<{ groupId: string; next: number }[]>`
            SELECT "groupId", MAX("indexInGroup") + 1 AS next FROM "Trajectory"
            WHERE "groupId" IN (${Prisma.join([...new Set(groupIds)])}) GROUP BY "groupId"`
        ).map((r) => [r.groupId, Number(r.next)]),
      );
      const nowIso = new Date().toISOString();
      const trajectoryRows: Record<string, unknown>[] = [];
      const callRows: Record<string, unknown>[] = [];
      records.forEach((r, i) => {
        const groupId = groupIds[i];
        const indexInGroup = nextIndex.get(groupId) ?? 0;
        nextIndex.set(groupId, indexInGroup + 1);
        const t = r.trajectory;
        trajectoryRows.push({
          id: r.trajectoryId,
          groupId,
          runId: r.run.id,
          step: r.step,
          split: r.split,
          taskId: r.task.id,
          indexInGroup,
          reward: t.evaluation?.reward ?? null,
          rewardComponents: t.evaluation?.components ?? {},
          advantage: null,
          reasoning: t.evaluation?.reasoning ?? null,
          status: t.status,
          endReason: t.endReason,
          error: t.error,
          numTurns: t.turns,
          promptTokens: 0,
          responseTokens: t.messages.reduce((s, m) => s + (m.source === "policy" ? (m.tokens ?? 0) : 0), 0),
          conversation: t.messages,
          finalState: t.evaluation?.finalState ?? null,
          expectedState: t.evaluation?.expectedState ?? null,
          createdAt: nowIso,
        });
        for (const c of t.llmCalls) callRows.push(llmCallRow(c, r.run.id, r.trajectoryId) as unknown as Record<string, unknown>);
      });
      await insertJsonRows(tx, "Trajectory", trajectoryRows);
      await insertJsonRows(tx, "LlmCall", callRows);
      await tx.$executeRaw`
        UPDATE "Group" g SET "rewardMean" = s.mean, "rewardStd" = s.std
        FROM (SELECT "groupId", avg(reward) AS mean, stddev_pop(reward) AS std FROM "Trajectory"
              WHERE "groupId" IN (${Prisma.join([...new Set(groupIds)])}) AND reward IS NOT NULL GROUP BY "groupId") s
        WHERE g.id = s."groupId"`;
      await refreshStepMetrics(tx, refreshSteps);
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
}

async function insertGroups(tx: Tx, records: EpisodeRecord[], groupIds: string[]): Promise<void> {
  const present = new Set(
    (await tx.group.findMany({ where: { id: { in: [...new Set(groupIds)] } }, select: { id: true } })).map((g) => g.id),
  );
  const fresh = records.map((r, i) => ({ r, id: groupIds[i] })).filter(({ id }, i) => !present.has(id) && groupIds.indexOf(id) === i);
  if (!fresh.length) return;
  const runIds = [...new Set(fresh.map(({ r }) => r.run.id))];
  const next = new Map(
    (
      await tx.$queryRaw<{ runId: string; step: number; split: string; next: number }[]>`
        SELECT "runId", step, split, MAX("indexInStep") + 1 AS next FROM "Group"
        WHERE "runId" IN (${Prisma.join(runIds)}) GROUP BY "runId", step, split`
    ).map((g) => [`${g.runId}\0${g.step}\0${g.split}`, Number(g.next)]),
  );
  const nowIso = new Date().toISOString();
  await insertJsonRows(
    tx,
    "Group",
    fresh.map(({ r, id }) => {
      const key = `${r.run.id}\0${r.step}\0${r.split}`;
      const indexInStep = next.get(key) ?? 0;
      next.set(key, indexInStep + 1);
      return {
        id,
        runId: r.run.id,
        step: r.step,
        indexInStep,
        split: r.split,
        taskId: r.task.id,
        task: { id: r.task.id, split: r.task.split, tags: r.task.tags, data: r.task.data },
        rewardMean: null,
        rewardStd: null,
        dropped: false,
        createdAt: nowIso,
      };
    }),
  );
}

/** The curves: per step, reward and turn statistics over every episode stored for it (any server's). */
async function refreshStepMetrics(tx: Tx, steps: StepKey[]): Promise<void> {
  const unique = new Map(steps.map((s) => [stepKeyOf(s), s]));
  for (const { runId, step } of unique.values()) {
    await tx.$executeRaw`
      INSERT INTO "MetricPoint" ("runId", "key", "step", "value", "wallTime")
      SELECT ${runId}, m.key, ${step}, m.value, now() AT TIME ZONE 'UTC'
      FROM (SELECT
              avg(reward) FILTER (WHERE split = 'train') AS train_mean,
              stddev_pop(reward) FILTER (WHERE split = 'train') AS train_std,
              avg("numTurns") FILTER (WHERE split = 'train') AS turns,
              count(*) FILTER (WHERE split = 'train' AND reward IS NULL) AS unscored,
              count(*) FILTER (WHERE split = 'train') AS episodes,
              avg(reward) FILTER (WHERE split = 'eval') AS eval_mean
            FROM "Trajectory" WHERE "runId" = ${runId} AND step = ${step}) s,
      LATERAL (VALUES ('reward/mean', s.train_mean), ('reward/std', s.train_std), ('env/turns_mean', s.turns::double precision),
                      ('env/unscored', s.unscored::double precision), ('env/episodes', s.episodes::double precision),
                      ('eval/reward_mean', s.eval_mean)) AS m(key, value)
      WHERE m.value IS NOT NULL AND (m.key <> 'env/episodes' OR m.value > 0)
      ON CONFLICT ("runId", "key", "step") DO UPDATE SET "value" = EXCLUDED."value", "wallTime" = EXCLUDED."wallTime"`;
    await refreshMetricRollups(tx, runId, step, { noPointsDeleted: true }); // upserts only
    await tx.$executeRaw`
      UPDATE "Run" SET step = GREATEST(step, ${step + 1}), "totalSteps" = GREATEST("totalSteps", ${step + 1}),
        "latestReward" = CASE WHEN ${step + 1} >= step
          THEN COALESCE((SELECT value FROM "MetricPoint" WHERE "runId" = ${runId} AND key = 'reward/mean' AND step = ${step}), "latestReward")
          ELSE "latestReward" END,
        "updatedAt" = now() AT TIME ZONE 'UTC'
      WHERE id = ${runId}`;
  }
}
