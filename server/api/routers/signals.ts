import { z } from "zod";
import { getRunReliability } from "../../services/reliability";
import { getComponentAnalysis, getRunSignals } from "../../services/reward-signals";
import { getRunHealth } from "../../services/run-health";
import { publicProcedure, router } from "../trpc";
import { runIdSchema } from "../ids";

const runInput = z.object({ runId: runIdSchema }).strict();

export const signalsRouter = router({
  /** Can the run learn at all: groups without variance, zero advantages or gradients, full contexts, failed judges. */
  health: publicProcedure.input(runInput).query(({ ctx, input }) => getRunHealth(ctx.db, input)),
  /** Reward-hacking and simulator-failure warnings per step, with example trajectories. */
  warnings: publicProcedure.input(runInput).query(({ ctx, input }) => getRunSignals(ctx.db, input)),
  /** Each reward component's curve, its share of the total's variance, and trajectories where components disagree. */
  components: publicProcedure.input(runInput).query(({ ctx, input }) => getComponentAnalysis(ctx.db, input)),
  /** Judge agreement, variance and the run's noise floor, from re-judgings with k ≥ 2 samples. */
  reliability: publicProcedure.input(runInput).query(({ ctx, input }) => getRunReliability(ctx.db, input)),
});
