/**
 * The worker's executor for evaluation runs (a config with an eval section): claimed from the queue like any run,
 * played by eval-run.ts with the pieces of eval-deps.ts, recorded through the same sink.
 */
import type { RunConfig } from "../../lib/run-config";
import type { PrismaClient } from "../../generated/prisma/client";
import { resolveDataPath } from "../data-roots";
import type { TrainOutcome } from "../loop/types";
import { setRunBackend } from "../worker/lease";
import type { RunContext } from "../worker/worker";
import { createEvalDeps } from "./eval-deps";
import { evalRun } from "./eval-run";

/** The folder of policy.checkpoint: the run's checkpoint at that step, else its latest (the final policy). */
export async function checkpointLocationOf(
  db: PrismaClient,
  ref: NonNullable<RunConfig["policy"]["checkpoint"]>,
  roots: string[],
): Promise<string> {
  const row = await db.checkpoint.findFirst({
    where: { runId: ref.runId, ...(ref.step !== undefined ? { step: ref.step } : {}) },
    orderBy: { step: "desc" },
    select: { location: true, step: true },
  });
  if (!row) {
    throw new Error(
      `Run ${ref.runId} has no checkpoint${ref.step !== undefined ? ` at step ${ref.step}` : ""} (a run keeps only its last checkpoint.keepLast checkpoints): pick one listed on that run's page.`,
    );
  }
  return resolveDataPath("policy.checkpoint", row.location, roots);
}

export async function executeEvaluation(ctx: RunContext, config: RunConfig, roots: string[]): Promise<TrainOutcome> {
  const checkpointLocation = config.policy.checkpoint ? await checkpointLocationOf(ctx.db, config.policy.checkpoint, roots) : undefined;
  const setup = await createEvalDeps(config, { checkpointLocation });
  try {
    await setRunBackend(ctx.db, ctx.run.id, ctx.workerId, setup.backend);
    return await evalRun(config, setup.deps, ctx.sink, ctx.control);
  } finally {
    setup.dispose();
  }
}
