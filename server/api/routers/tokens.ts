/**
 * API tokens from the dashboard's settings page. The dashboard itself is protected by DASHBOARD_PASSWORD (proxy.ts)
 * when set; the very first token can also be created offline with `rollout-lab tokens create` (cli/tokens.ts).
 */
import { z } from "zod";
import { publicProcedure, router } from "../trpc";
import { TOKEN_SCOPES, createToken, listTokens, revokeToken } from "../../services/tokens";
import { entityId } from "../ids";

export const tokensRouter = router({
  list: publicProcedure
    .input(
      z
        .object({ includeRevoked: z.boolean().default(false) })
        .strict()
        .prefault({}),
    )
    .query(({ ctx, input }) => listTokens(ctx.db, input)),

  create: publicProcedure
    .input(z.object({ name: z.string().trim().min(1).max(80), scopes: z.array(z.enum(TOKEN_SCOPES)).min(1).max(3) }).strict())
    .mutation(({ ctx, input }) => createToken(ctx.db, input)),

  revoke: publicProcedure.input(z.object({ id: entityId }).strict()).mutation(({ ctx, input }) => revokeToken(ctx.db, input.id)),
});
