import { z } from "zod";
import { publicProcedure, router } from "../trpc";
import {
  TRAJECTORY_SORTS,
  exportTrajectorySimia,
  getTaskHistory,
  getTrajectory,
  getTrajectoryFacets,
  getTrajectoryNeighbors,
  listTrajectories,
  locateTrajectory,
} from "../../services/trajectories";
import { compareRuns } from "../../services/compare";
import { getPolicyTokens } from "../../services/policy-tokens";
import { entityId } from "../ids";

const id = entityId;
const step = z.number().int().min(0).max(10_000_000);

/** The browser's filters and order; the inspector sends the same object to find its neighbours. */
const filters = {
  runId: id,
  split: z.string().max(40).optional(),
  stepMin: step.optional(),
  stepMax: step.optional(),
  rewardMin: z.number().finite().optional(),
  rewardMax: z.number().finite().optional(),
  status: z
    .array(z.enum(["ok", "truncated", "unscored", "error"]))
    .max(4)
    .optional(),
  taskId: z.string().max(200).optional(),
  text: z.string().max(200).optional(),
  endReason: z.string().max(80).optional(),
  verdict: z.string().max(200).optional(),
  component: z.string().max(120).optional(),
  componentMin: z.number().finite().optional(),
  sort: z.enum(TRAJECTORY_SORTS).default("step"),
  dir: z.enum(["asc", "desc"]).default("asc"),
};

export const trajectoriesRouter = router({
  list: publicProcedure
    .input(
      z
        .object({
          ...filters,
          limit: z.number().int().min(1).max(200).default(50),
          offset: z.number().int().min(0).max(1_000_000).default(0),
        })
        .strict(),
    )
    .query(({ ctx, input }) => listTrajectories(ctx.db, input)),

  neighbors: publicProcedure.input(z.object({ ...filters, id }).strict()).query(({ ctx, input }) => getTrajectoryNeighbors(ctx.db, input)),

  get: publicProcedure.input(z.object({ runId: id, id }).strict()).query(({ ctx, input }) => getTrajectory(ctx.db, input)),

  policyTokens: publicProcedure.input(z.object({ runId: id, id }).strict()).query(({ ctx, input }) => getPolicyTokens(ctx.db, input)),

  locate: publicProcedure.input(z.object({ id }).strict()).query(({ ctx, input }) => locateTrajectory(ctx.db, input.id)),

  exportSimia: publicProcedure.input(z.object({ runId: id, id }).strict()).query(({ ctx, input }) => exportTrajectorySimia(ctx.db, input)),

  facets: publicProcedure.input(z.object({ runId: id }).strict()).query(({ ctx, input }) => getTrajectoryFacets(ctx.db, input.runId)),

  taskHistory: publicProcedure
    .input(z.object({ runId: id, taskId: z.string().min(1).max(200), split: z.string().max(40).optional() }).strict())
    .query(({ ctx, input }) => getTaskHistory(ctx.db, input)),

  // Lives here until there is a compare router: the compare page is the trajectory side's cross-run view.
  compareRuns: publicProcedure
    .input(z.object({ runIds: z.array(id).min(1).max(24) }).strict())
    .query(({ ctx, input }) => compareRuns(ctx.db, input)),
});
