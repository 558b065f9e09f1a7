/**
 * The ingest API: runs trained by other systems (verl, SkyRL, TRL, ART, Simia-RL, τ²-bench) streamed or imported in.
 * Inputs are lib/ingest.ts's schemas; each procedure is one service call (server/services/ingest.ts). REST routes
 * under /api/v1/external-runs call these same procedures.
 */
import { externalRunInput, finishInput, stepsInput, trajectoriesInput } from "../../../lib/ingest";
import { publicProcedure, router } from "../trpc";
import { appendSteps, appendTrajectories, createExternalRun, finishExternalRun } from "../../services/ingest";

export const ingestRouter = router({
  createRun: publicProcedure.input(externalRunInput).mutation(({ ctx, input }) => createExternalRun(ctx.db, input)),
  appendSteps: publicProcedure.input(stepsInput).mutation(({ ctx, input }) => appendSteps(ctx.db, input)),
  appendTrajectories: publicProcedure.input(trajectoriesInput).mutation(({ ctx, input }) => appendTrajectories(ctx.db, input)),
  finish: publicProcedure.input(finishInput).mutation(({ ctx, input }) => finishExternalRun(ctx.db, input)),
});
