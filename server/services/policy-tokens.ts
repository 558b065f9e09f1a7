/**
 * The inspector's policy view: the token sequence one trajectory was trained on (lib/policy-tokens.ts), read on
 * demand: it can be hundreds of KB, so the trajectory detail only says whether it exists.
 */
import type { PrismaClient } from "../../db/client";
import type { PolicyTokens } from "../../lib/policy-tokens";
import { notFound } from "../errors";

export async function getPolicyTokens(db: PrismaClient, input: { runId: string; id: string }): Promise<PolicyTokens | null> {
  const t = await db.trajectory.findUnique({
    where: { id: input.id },
    select: { runId: true, policyTokens: { select: { tokens: true } } },
  });
  if (!t || t.runId !== input.runId) throw notFound("Trajectory", input.id);
  return (t.policyTokens?.tokens as PolicyTokens | undefined) ?? null;
}

export async function hasPolicyTokens(db: PrismaClient, trajectoryId: string): Promise<boolean> {
  return (await db.trajectoryTokens.count({ where: { trajectoryId } })) > 0;
}
