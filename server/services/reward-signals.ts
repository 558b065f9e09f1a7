/**
 * Reward-hacking and simulator-failure signals and per-component reward analysis for a run, computed from stored
 * metrics, trajectories and LLM calls by the pure functions in lib/reward-signals.ts and lib/reward-analysis.ts.
 * Reads are bounded (the most recent trajectories) so a long run's page stays fast.
 */
import type { ConversationMessage } from "../../lib/conversation";
import { analyseComponents } from "../../lib/reward-analysis";
import { computeSignals, type SeriesPoint, type SignalTrajectory } from "../../lib/reward-signals";
import type { PrismaClient } from "../../db/client";
import { notFound } from "../errors";

const MAX_TRAJECTORIES = 4000;

/** The split the signals read: a training run's train trajectories, an evaluation run's (which has only eval ones). */
const mainSplit = (rows: { split: string }[]) => (rows.some((r) => r.split === "train") ? "train" : "eval");
const SERIES_KEYS = ["reward/mean", "eval/reward_mean", "response/length_mean", "env/turns_mean"] as const;

async function loadRows(db: PrismaClient, runId: string) {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true } });
  if (!run) throw notFound("Run", runId);
  const trajectories = await db.trajectory.findMany({
    where: { runId },
    orderBy: [{ step: "desc" }, { groupId: "asc" }, { indexInGroup: "asc" }],
    take: MAX_TRAJECTORIES,
    select: {
      id: true,
      step: true,
      groupId: true,
      split: true,
      reward: true,
      rewardComponents: true,
      status: true,
      endReason: true,
      numTurns: true,
      finalState: true,
      expectedState: true,
      conversation: true,
    },
  });
  return trajectories;
}

export async function getRunSignals(db: PrismaClient, input: { runId: string }) {
  const rows = await loadRows(db, input.runId);
  const errors = await db.llmCall.groupBy({
    by: ["trajectoryId"],
    where: {
      runId: input.runId,
      error: { not: null },
      role: { in: ["user_simulator", "tool_simulator"] },
      trajectoryId: { in: rows.map((r) => r.id) },
    },
    _count: { _all: true },
  });
  const errorCount = new Map(errors.map((e) => [e.trajectoryId, e._count._all]));
  const points = await db.metricPoint.findMany({
    where: { runId: input.runId, key: { in: [...SERIES_KEYS] } },
    select: { key: true, step: true, value: true },
    orderBy: { step: "asc" },
  });
  const series = (key: string): SeriesPoint[] => points.filter((p) => p.key === key).map((p) => ({ step: p.step, value: p.value }));

  const split = mainSplit(rows);
  const trajectories: SignalTrajectory[] = rows
    .filter((r) => r.split === split)
    .map((r) => {
      const conv = (Array.isArray(r.conversation) ? r.conversation : []) as unknown as ConversationMessage[];
      const policy = conv.filter((m) => m.source === "policy");
      return {
        id: r.id,
        step: r.step,
        groupId: r.groupId,
        reward: r.reward,
        status: r.status,
        endReason: r.endReason,
        numTurns: r.numTurns,
        finalState: r.finalState,
        expectedState: r.expectedState,
        policyText: policy.map((m) => m.content).join("\n"),
        formatErrors: policy.filter((m) => m.formatError).length,
        simulatorErrors: errorCount.get(r.id) ?? 0,
      };
    });
  const signals = computeSignals({
    trajectories,
    rewardSeries: series("reward/mean"),
    evalSeries: series("eval/reward_mean"),
    lengthSeries: series("response/length_mean"),
    turnsSeries: series("env/turns_mean"),
  });
  return { signals, trajectoriesAnalysed: trajectories.length, truncated: rows.length === MAX_TRAJECTORIES };
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
  return analyseComponents(
    rows
      .filter((r) => r.split === split)
      .map((r) => ({
        id: r.id,
        step: r.step,
        reward: r.reward,
        components: (r.rewardComponents && typeof r.rewardComponents === "object" ? r.rewardComponents : {}) as Record<string, unknown>,
      })),
  );
}
