import { z } from "zod";
import { getSlurmJobLines } from "../../services/slurm-jobs";
import { publicProcedure, router } from "../trpc";
import {
  getRun,
  getRunConfigLeaves,
  getRunFacets,
  getRunTrainingSeconds,
  getRunWarmup,
  listRunEvents,
  listRuns,
} from "../../services/runs";
import { getMetricSeries, getRewardSparklines, getRunSummaries, listMetricKeys } from "../../services/metrics";
import { getRunQueueStanding } from "../../services/run-queue";
import { runIdSchema } from "../ids";
import { RUN_STATUSES } from "../../../lib/run-status";
import { INT4_MAX } from "../../../lib/db-int";

const runStatus = z.enum(RUN_STATUSES);
const runId = runIdSchema;

export const runsRouter = router({
  list: publicProcedure
    .input(
      z
        .object({
          status: z.array(runStatus).optional(),
          environment: z.string().max(100).optional(),
          tag: z.string().max(100).optional(),
          search: z.string().max(200).optional(),
          limit: z.number().int().min(1).max(200).default(50),
          cursor: z.string().max(64).optional(),
        })
        .strict()
        .prefault({}),
    )
    .query(({ ctx, input }) => listRuns(ctx.db, input)),

  get: publicProcedure.input(z.object({ id: runId }).strict()).query(({ ctx, input }) => getRun(ctx.db, input.id)),

  /** A queued run's place in the queue and what holds it (null once it is no longer queued). */
  queueStanding: publicProcedure.input(z.object({ id: runId }).strict()).query(({ ctx, input }) => getRunQueueStanding(ctx.db, input.id)),

  /** Seconds spent training, apart from time queued or stopped (null before the first step is recorded). */
  trainingSeconds: publicProcedure
    .input(z.object({ id: runId }).strict())
    .query(({ ctx, input }) => getRunTrainingSeconds(ctx.db, input.id)),

  /** The SFT warm-up's steps, losses and ETA (null when the run has none). */
  warmup: publicProcedure.input(z.object({ id: runId }).strict()).query(({ ctx, input }) => getRunWarmup(ctx.db, input.id)),

  events: publicProcedure
    .input(
      z
        .object({
          id: runId,
          minLevel: z.enum(["debug", "info", "warn", "error"]).optional(),
          limit: z.number().int().min(1).max(500).default(100),
          before: z.number().int().positive().max(INT4_MAX).optional().describe("Only events with a smaller id (the page before)."),
        })
        .strict(),
    )
    .query(({ ctx, input }) =>
      listRunEvents(ctx.db, { runId: input.id, minLevel: input.minLevel, limit: input.limit, before: input.before }),
    ),

  sparklines: publicProcedure
    .input(z.object({ ids: z.array(runId).max(200) }).strict())
    .query(({ ctx, input }) => getRewardSparklines(ctx.db, input.ids)),

  /** Best reward, last KL and LLM cost of each listed run (the runs table's metric columns). */
  summaries: publicProcedure
    .input(z.object({ ids: z.array(runId).max(200) }).strict())
    .query(({ ctx, input }) => getRunSummaries(ctx.db, input.ids)),

  /** Each listed run's scalar config settings by path (the runs table's config columns). */
  configLeaves: publicProcedure
    .input(z.object({ ids: z.array(runId).max(200) }).strict())
    .query(({ ctx, input }) => getRunConfigLeaves(ctx.db, input.ids)),

  /** Each listed Slurm run's job in one line ("Slurm job 12: PENDING (Resources)"); runs a worker trains are absent. */
  slurmJobLines: publicProcedure
    .input(z.object({ ids: z.array(runId).max(200) }).strict())
    .query(({ ctx, input }) => getSlurmJobLines(ctx.db, input.ids)),

  facets: publicProcedure.query(({ ctx }) => getRunFacets(ctx.db)),

  metricKeys: publicProcedure.input(z.object({ id: runId }).strict()).query(({ ctx, input }) => listMetricKeys(ctx.db, input.id)),

  metricSeries: publicProcedure
    .input(
      z
        .object({
          id: runId,
          keys: z.array(z.string().max(200)).min(1).max(50),
          maxPoints: z.number().int().min(10).max(5000).default(500),
        })
        .strict(),
    )
    .query(({ ctx, input }) => getMetricSeries(ctx.db, { runId: input.id, keys: input.keys, maxPoints: input.maxPoints })),
});
