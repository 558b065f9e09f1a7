/**
 * The ingest API: runs trained by other systems (verl, SkyRL, TRL, ART, Simia-RL, τ²-bench) streamed or imported in.
 * Inputs are lib/ingest.ts's schemas; each procedure is one service call (server/services/ingest.ts). REST routes
 * under /api/v1/external-runs call these same procedures.
 */
import { externalRunInput, finishInput, historyInput, resumeInput, runKeyInput, stepsInput, trajectoriesInput } from "../../../lib/ingest";
import { publicProcedure, router } from "../trpc";
import {
  appendHistory,
  appendSteps,
  appendTrajectories,
  createExternalRun,
  findExternalRunByKey,
  finishExternalRun,
  resumeExternalRun,
} from "../../services/ingest";

export const ingestRouter = router({
  createRun: publicProcedure.input(externalRunInput).mutation(({ ctx, input }) => createExternalRun(ctx.db, input)),
  resume: publicProcedure.input(resumeInput).mutation(({ ctx, input }) => resumeExternalRun(ctx.db, input)),
  byKey: publicProcedure.input(runKeyInput).query(({ ctx, input }) => findExternalRunByKey(ctx.db, input)),
  appendSteps: publicProcedure.input(stepsInput).mutation(({ ctx, input }) => appendSteps(ctx.db, input)),
  appendTrajectories: publicProcedure.input(trajectoriesInput).mutation(({ ctx, input }) => appendTrajectories(ctx.db, input)),
  appendHistory: publicProcedure.input(historyInput).mutation(({ ctx, input }) => appendHistory(ctx.db, input)),
  finish: publicProcedure.input(finishInput).mutation(({ ctx, input }) => finishExternalRun(ctx.db, input)),
});
