/**
 * Reward-hacking and simulator-failure signals and per-component reward analysis for a run, computed from stored
 * metrics, trajectories and LLM calls by the pure functions in lib/reward-signals.ts and lib/reward-analysis.ts.
 * Reads are bounded (the most recent trajectories, curves at chart resolution) so a long run's page stays fast, and
 * the warnings come grouped by kind (lib/signal-groups.ts).
 */
import { analyseComponents } from "../../lib/reward-analysis";
import { computeSignals, type SeriesPoint, type SignalTrajectory } from "../../lib/reward-signals";
import { groupSignals } from "../../lib/signal-groups";
import { getMetricSeries } from "./metrics";
import type { PrismaClient } from "../../db/client";
import { notFound } from "../errors";

const MAX_TRAJECTORIES = 4000;

/** The split the signals read: a training run's train trajectories, an evaluation run's (which has only eval ones). */
const mainSplit = (rows: { split: string }[]) => (rows.some((r) => r.split === "train") ? "train" : "eval");
const SERIES_KEYS = ["reward/mean", "eval/reward_mean", "response/length_mean", "env/turns_mean"] as const;
/**
 * The curves' resolution for drift and divergence: a run up to this many steps is read step by step; a longer one
 * as the charts draw it (bucket means from the trainer's rollups), so a 100k-step run reads ~2k points per key
 * instead of 100k, and a drift is a change of the curve rather than one step's jitter.
 */
const SERIES_POINTS = 2000;

/** The trajectory columns the checks read, with only the policy's text of each conversation (not the whole JSON). */
interface SignalRow {
  id: string;
  step: number;
  groupId: string;
  split: string;
  reward: number | null;
  status: string;
  endReason: string | null;
  numTurns: number;
  finalState: unknown;
  expectedState: unknown;
  policyText: string;
  formatErrors: number;
  /** Failed user/tool simulator calls of the episode. */
  simulatorErrors: number;
}

async function loadRows(db: PrismaClient, runId: string): Promise<SignalRow[]> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true } });
  if (!run) throw notFound("Run", runId);
  // The policy's messages are picked out in the database: a τ² conversation is ~10 KB, and 4,000 of them decoded
  // in Node took longer than every check together.
  return db.$queryRaw<SignalRow[]>`
    SELECT t.id, t.step, t."groupId", t.split, t.reward, t.status::text AS status, t."endReason", t."numTurns",
           t."finalState", t."expectedState",
           coalesce(p.text, '') AS "policyText", coalesce(p.errors, 0)::int AS "formatErrors",
           (SELECT count(*) FROM "LlmCall" c
             WHERE c."trajectoryId" = t.id AND c.error IS NOT NULL AND c.role IN ('user_simulator', 'tool_simulator'))::int AS "simulatorErrors"
    FROM "Trajectory" t
    LEFT JOIN LATERAL (
      SELECT string_agg(m->>'content', E'\n' ORDER BY i) AS text, count(*) FILTER (WHERE coalesce(m->>'formatError', '') <> '') AS errors
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(t.conversation) = 'array' THEN t.conversation ELSE '[]'::jsonb END)
           WITH ORDINALITY AS e(m, i)
      WHERE m->>'source' = 'policy'
    ) p ON true
    WHERE t."runId" = ${runId}
    ORDER BY t.step DESC, t."groupId", t."indexInGroup"
    LIMIT ${MAX_TRAJECTORIES}`;
}

export async function getRunSignals(db: PrismaClient, input: { runId: string }) {
  // The trajectories and the curves are independent reads.
  const [rows, curves] = await Promise.all([
    loadRows(db, input.runId),
    getMetricSeries(db, { runId: input.runId, keys: [...SERIES_KEYS], maxPoints: SERIES_POINTS }),
  ]);
  const series = (key: string): SeriesPoint[] => (curves[key] ?? []).map((p) => ({ step: p.step, value: p.value }));

  const split = mainSplit(rows);
  const trajectories: SignalTrajectory[] = rows.filter((r) => r.split === split);
  const signals = computeSignals({
    trajectories,
    rewardSeries: series("reward/mean"),
    evalSeries: series("eval/reward_mean"),
    lengthSeries: series("response/length_mean"),
    turnsSeries: series("env/turns_mean"),
  });
  return {
    /** One entry per kind of warning, the most recent first, each with its step ranges and latest instances. */
    groups: groupSignals(signals),
    total: signals.length,
    trajectoriesAnalysed: trajectories.length,
    truncated: rows.length === MAX_TRAJECTORIES,
  };
}

export async function getComponentAnalysis(db: PrismaClient, input: { runId: string }) {
  const run = await db.run.findUnique({ where: { id: input.runId }, select: { id: true } });
  if (!run) throw notFound("Run", input.runId);
  const rows = await db.trajectory.findMany({
    where: { runId: input.runId },
    orderBy: [{ step: "desc" }, { groupId: "asc" }, { indexInGroup: "asc" }],
    take: MAX_TRAJECTORIES,
    select: { id: true, step: true, split: true, reward: true, rewardComponents: true },
  });
  const split = mainSplit(rows);
  const analysis = analyseComponents(
    rows
      .filter((r) => r.split === split)
      .map((r) => ({
        id: r.id,
        step: r.step,
        reward: r.reward,
        components: (r.rewardComponents && typeof r.rewardComponents === "object" ? r.rewardComponents : {}) as Record<string, unknown>,
      })),
  );
  // The cap keeps the most recent trajectories: the page says where its window starts rather than implying step 0.
  return { ...analysis, truncated: rows.length === MAX_TRAJECTORIES };
}
