/**
 * Can this run learn? The checks of lib/run-health.ts over the run's metric series and the summaries of its most
 * recent training trajectories. Format errors are counted in SQL so no conversation leaves the database.
 */
import { assessRunHealth, type HealthTrajectory } from "../../lib/run-health";
import type { PrismaClient } from "../../db/client";
import { notFound } from "../errors";
import { isEvaluation } from "../../lib/eval-config";

const MAX_TRAJECTORIES = 4000;
const KEYS = ["reward/mean", "reward/zero_variance_group_frac", "adv/min", "adv/max", "grad/norm"];

export async function getRunHealth(db: PrismaClient, input: { runId: string }) {
  const run = await db.run.findUnique({ where: { id: input.runId }, select: { id: true, config: true } });
  if (!run) throw notFound("Run", input.runId);
  // An evaluation trains nothing: "cannot learn" does not apply (a gold replay's groups never vary, by design).
  if (isEvaluation((run.config ?? {}) as { eval?: unknown })) return { problems: [], trajectoriesChecked: 0, truncated: false };
  const points = await db.metricPoint.findMany({
    where: { runId: input.runId, key: { in: KEYS } },
    select: { key: true, step: true, value: true },
    orderBy: { step: "asc" },
  });
  const metrics: Record<string, { step: number; value: number }[]> = {};
  for (const p of points) (metrics[p.key] ??= []).push({ step: p.step, value: p.value });
  const rows = await db.$queryRaw<
    {
      step: number;
      reward: number | null;
      status: string;
      endReason: string | null;
      components: unknown;
      policyTurns: bigint;
      formatErrors: bigint;
    }[]
  >`
    SELECT t.step, t.reward, t.status::text AS status, t."endReason", t."rewardComponents" AS components,
           p.turns AS "policyTurns", p.errors AS "formatErrors"
      FROM "Trajectory" t
      -- The policy's own messages only: the environment's reply to an unparsable turn carries the same formatError,
      -- and counting both made "195% of policy turns could not be parsed".
      CROSS JOIN LATERAL (
        SELECT count(*) AS turns, count(*) FILTER (WHERE coalesce(m->>'formatError', '') <> '') AS errors
          FROM jsonb_array_elements(CASE WHEN jsonb_typeof(t.conversation) = 'array' THEN t.conversation ELSE '[]'::jsonb END) m
         WHERE m->>'source' = 'policy'
      ) p
     WHERE t."runId" = ${input.runId} AND t.split = 'train'
     ORDER BY t.step DESC
     LIMIT ${MAX_TRAJECTORIES}`;
  const trajectories: HealthTrajectory[] = rows.map((r) => ({
    step: r.step,
    reward: r.reward,
    status: r.status,
    endReason: r.endReason,
    components:
      r.components && typeof r.components === "object" && !Array.isArray(r.components) ? (r.components as Record<string, unknown>) : {},
    policyTurns: Number(r.policyTurns),
    formatErrors: Number(r.formatErrors),
  }));
  return {
    problems: assessRunHealth({ metrics, trajectories, sftWarmupSteps: warmupSteps(run.config) }),
    trajectoriesChecked: trajectories.length,
    truncated: rows.length === MAX_TRAJECTORIES,
  };
}

function warmupSteps(config: unknown): number {
  const steps = (config as { grpo?: { sftWarmupSteps?: unknown } } | null)?.grpo?.sftWarmupSteps;
  return typeof steps === "number" && steps > 0 ? steps : 0;
}
