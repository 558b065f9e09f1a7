import { z } from "zod";
import { publicProcedure, router } from "../trpc";
import { getGroup, listGroups } from "../../services/groups";
import { entityId } from "../ids";
import { MAX_STEP } from "../../../lib/ingest";

const id = entityId;

export const groupsRouter = router({
  get: publicProcedure.input(z.object({ runId: id, groupId: id }).strict()).query(({ ctx, input }) => getGroup(ctx.db, input)),

  list: publicProcedure
    .input(
      z
        .object({
          runId: id,
          step: z.number().int().min(0).max(MAX_STEP).optional(),
          taskId: z.string().max(200).optional(),
          split: z.string().max(40).optional(),
          /** zero: groups with no reward spread (no GRPO signal); nonzero: the rest. */
          variance: z.enum(["all", "zero", "nonzero"]).default("all"),
          sort: z.enum(["step", "std_desc", "std_asc"]).default("step"),
          limit: z.number().int().min(1).max(200).default(50),
          offset: z.number().int().min(0).max(1_000_000).default(0),
        })
        .strict(),
    )
    .query(({ ctx, input }) => listGroups(ctx.db, input)),
});
