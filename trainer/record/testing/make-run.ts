/** Insert a queued run with a valid RunConfig (tests and benches). */
import { parseRunConfig, type RunConfigInput } from "../../../lib/run-config";
import type { Prisma, PrismaClient } from "../../../generated/prisma/client";

export async function insertQueuedRun(
  db: PrismaClient,
  config: RunConfigInput = {},
  extra: Partial<Prisma.RunCreateInput> = {},
): Promise<string> {
  const parsed = parseRunConfig(config);
  const run = await db.run.create({
    data: {
      name: parsed.name,
      config: parsed as unknown as Prisma.InputJsonValue,
      environment: parsed.environment,
      policyModel: parsed.policy.model,
      seed: parsed.seed,
      totalSteps: parsed.grpo.steps,
      tags: parsed.tags,
      launchedBy: "cli",
      ...extra,
    },
  });
  return run.id;
}
