/**
 * Pre-flight checks before launch: the config is validated exactly as a launch would be, then queued for a trainer
 * worker (trainer/preflight) that renders the environment's real opening prompt with the chosen policy's tokenizer.
 * The form polls the result; without a worker nothing answers, and the form says so and lets the user launch.
 */
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import type { PreflightResult, PreflightStatus } from "../../lib/preflight";
import { notFound } from "../errors";
import { validateRunConfig } from "./run-lifecycle";

export async function requestPreflight(db: PrismaClient, input: { config: unknown }) {
  const config = validateRunConfig(input.config);
  const row = await db.preflight.create({
    data: { config: config as unknown as Prisma.InputJsonValue },
    select: { id: true, status: true },
  });
  return { id: row.id, status: row.status as PreflightStatus };
}

export async function getPreflight(db: PrismaClient, id: string) {
  const row = await db.preflight.findUnique({ where: { id } });
  if (!row) throw notFound("Pre-flight check", id);
  return {
    id: row.id,
    status: row.status as PreflightStatus,
    result: (row.result ?? null) as PreflightResult | null,
    error: row.error,
    /** Seconds since it was queued, so a client can tell "no worker is answering" from "still running". */
    ageSeconds: Math.round((Date.now() - row.createdAt.getTime()) / 1000),
  };
}
