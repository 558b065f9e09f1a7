/**
 * Evaluations: one run's scores per task (pass@1, pass^k, mean reward, cost), an environment's leaderboards, the
 * compare overlay, and launching an evaluation of a checkpoint or the demo's gold replay. Each procedure is a zod
 * input and one service call; evaluations of an endpoint are created like any run (runActions.create, eval section).
 */
import { z } from "zod";
import { publicProcedure, router } from "../trpc";
import { runIdSchema } from "../ids";
import { MAX_STEP } from "../../../lib/ingest";
import { compareEvaluations, getEvaluation, listEnvironmentEvaluations } from "../../services/evaluations";
import { evaluateCheckpoint, queueDemoEvaluation } from "../../services/evaluation-launch";

const launch = {
  source: z.enum(["ui", "api", "cli"]).default("ui"),
  launchedByName: z.string().max(120).optional(),
};

export const evaluationsRouter = router({
  get: publicProcedure.input(z.object({ runId: runIdSchema }).strict()).query(({ ctx, input }) => getEvaluation(ctx.db, input.runId)),

  environment: publicProcedure
    .input(z.object({ name: z.string().min(1).max(100).describe("Environment name, e.g. tau2-retail.") }).strict())
    .query(({ ctx, input }) => listEnvironmentEvaluations(ctx.db, input.name)),

  compare: publicProcedure
    .input(z.object({ runIds: z.array(runIdSchema).min(1).max(24) }).strict())
    .query(({ ctx, input }) => compareEvaluations(ctx.db, input.runIds)),

  evaluateCheckpoint: publicProcedure
    .input(
      z
        .object({
          runId: runIdSchema,
          step: z.number().int().min(0).max(MAX_STEP).optional().describe("The checkpoint's step (completed steps); omit for the latest."),
          k: z.number().int().min(1).max(64).default(4).describe("Trials per task."),
          tasks: z
            .array(z.string().min(1).max(300))
            .min(1)
            .max(10_000)
            .optional()
            .describe("Task ids (default: the eval split, else all)."),
          maxTasks: z.number().int().min(1).max(100_000).optional(),
          concurrency: z.number().int().min(1).max(256).optional(),
          name: z.string().min(1).max(120).optional(),
          ...launch,
        })
        .strict(),
    )
    .mutation(({ ctx, input }) => {
      const { source, ...rest } = input;
      return evaluateCheckpoint(ctx.db, { ...rest, launchedBy: source });
    }),

  /** The demo's one-click evaluation: the tasks' gold actions replayed on τ² retail (a script, not a model). */
  demo: publicProcedure
    .input(z.object({}).strict().prefault({}))
    .mutation(({ ctx }) => queueDemoEvaluation(ctx.db, { launchedBy: "ui", launchedByName: "demo evaluation" })),
});
