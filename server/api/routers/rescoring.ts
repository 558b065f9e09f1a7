import { z } from "zod";
import { RescoringSelectionSchema, ScorerSchema } from "../../../lib/rescoring-config";
import { createRescoring, getRescoring, listRescorings } from "../../services/rescoring";
import { publicProcedure, router } from "../trpc";
import { entityId } from "../ids";

const id = entityId;

export const rescoringRouter = router({
  /** Queue a re-scoring job (a trainer worker executes it); returns its id at once. */
  create: publicProcedure
    .input(
      z.object({ runId: id, name: z.string().max(200).optional(), selection: RescoringSelectionSchema, scorer: ScorerSchema }).strict(),
    )
    .mutation(({ ctx, input }) => createRescoring(ctx.db, input)),

  list: publicProcedure.input(z.object({ runId: id }).strict()).query(({ ctx, input }) => listRescorings(ctx.db, input)),

  /** Old vs new reward per trajectory, agreement, flips (with both reasonings), new advantages, judge reliability. */
  get: publicProcedure
    .input(
      z
        .object({ runId: id, rescoringId: id, onlyFlipped: z.boolean().optional(), threshold: z.number().min(0).max(1).optional() })
        .strict(),
    )
    .query(({ ctx, input }) => getRescoring(ctx.db, input)),
});
