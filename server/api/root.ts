import { createCallerFactory, router } from "./trpc";
import { runsRouter } from "./routers/runs";
import { trajectoriesRouter } from "./routers/trajectories";
import { groupsRouter } from "./routers/groups";
import { runActionsRouter } from "./routers/run-actions";
import { tokensRouter } from "./routers/tokens";
import { rescoringRouter } from "./routers/rescoring";
import { signalsRouter } from "./routers/signals";
import { ingestRouter } from "./routers/ingest";
import { evaluationsRouter } from "./routers/evaluations";

export const appRouter = router({
  runs: runsRouter,
  trajectories: trajectoriesRouter,
  groups: groupsRouter,
  runActions: runActionsRouter,
  tokens: tokensRouter,
  rescoring: rescoringRouter,
  signals: signalsRouter,
  ingest: ingestRouter,
  evaluations: evaluationsRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side caller: used by server components and by tests (with a test database's client). */
export const createCaller = createCallerFactory(appRouter);
