/**
 * Run lifecycle and the reads CI needs that the dashboard routers do not offer (status summary with latest
 * metrics, all-keys metric series, checkpoints). Each procedure is a strict zod input and one service call; the
 * REST API under /api/v1 calls these same procedures (server/rest/routes.ts).
 */
import { z } from "zod";
import { publicProcedure, router } from "../trpc";
import { cancelRun, cloneRun, createRun, getRunMetricSeries, getRunStatus, listCheckpoints, resumeRun } from "../../services/run-lifecycle";
import { getPreflight, requestPreflight } from "../../services/preflight";
import { entityId, runIdSchema } from "../ids";
import { setRunNotes, setRunTags } from "../../services/runs";
import { runNotesSchema } from "../../../lib/run-notes";

const runId = runIdSchema;
/** Who launched: the REST layer overrides these from the authenticated token; the dashboard sends "ui". */
const launch = {
  source: z.enum(["ui", "api", "cli"]).default("ui"),
  launchedByName: z.string().max(120).optional(),
};

export const runActionsRouter = router({
  create: publicProcedure
    .input(
      z
        .object({
          config: z.record(z.string(), z.unknown()).describe("A RunConfig (lib/run-config.ts); omitted fields take their defaults."),
          notes: runNotesSchema.optional().describe("The run's notes (metadata, not config: editable later, never cloned)."),
          ...launch,
        })
        .strict(),
    )
    .mutation(({ ctx, input }) =>
      createRun(ctx.db, { config: input.config, notes: input.notes, launchedBy: input.source, launchedByName: input.launchedByName }),
    ),

  clone: publicProcedure
    .input(
      z
        .object({
          id: runId,
          overrides: z.record(z.string(), z.unknown()).optional().describe("Config fields to change; sections merge shallowly."),
          ...launch,
        })
        .strict(),
    )
    .mutation(({ ctx, input }) =>
      cloneRun(ctx.db, { id: input.id, overrides: input.overrides, launchedBy: input.source, launchedByName: input.launchedByName }),
    ),

  /** Replace a run's tags (each 1-40 characters, at most 20), at any time after launch. */
  setTags: publicProcedure
    .input(z.object({ id: runId, tags: z.array(z.string().trim().min(1, "a tag cannot be empty").max(40)).max(20) }).strict())
    .mutation(({ ctx, input }) => setRunTags(ctx.db, input.id, input.tags)),

  /** Replace a run's notes (plain text, at most RUN_NOTES_MAX_CHARS), at any time after launch; "" clears them. */
  setNotes: publicProcedure
    .input(z.object({ id: runId, notes: runNotesSchema }).strict())
    .mutation(({ ctx, input }) => setRunNotes(ctx.db, input.id, input.notes)),

  cancel: publicProcedure.input(z.object({ id: runId }).strict()).mutation(({ ctx, input }) => cancelRun(ctx.db, input.id)),

  resume: publicProcedure.input(z.object({ id: runId }).strict()).mutation(({ ctx, input }) => resumeRun(ctx.db, input.id)),

  status: publicProcedure.input(z.object({ id: runId }).strict()).query(({ ctx, input }) => getRunStatus(ctx.db, input.id)),

  metrics: publicProcedure
    .input(
      z
        .object({
          id: runId,
          keys: z
            .array(z.string().min(1).max(200))
            .min(1)
            .max(50)
            .optional()
            .describe("Metric keys (default: all keys of the run, at most 50)."),
          maxPoints: z.number().int().min(10).max(5000).default(500).describe("Downsample each series to at most this many points."),
        })
        .strict(),
    )
    .query(({ ctx, input }) => getRunMetricSeries(ctx.db, input)),

  checkpoints: publicProcedure.input(z.object({ id: runId }).strict()).query(({ ctx, input }) => listCheckpoints(ctx.db, input.id)),

  /** Queue a pre-flight check of a config (validated as a launch would be); a trainer worker answers it. */
  preflight: publicProcedure
    .input(z.object({ config: z.record(z.string(), z.unknown()).describe("A RunConfig, as for create.") }).strict())
    .mutation(({ ctx, input }) => requestPreflight(ctx.db, input)),

  preflightResult: publicProcedure.input(z.object({ id: entityId }).strict()).query(({ ctx, input }) => getPreflight(ctx.db, input.id)),
});
