/**
 * Evaluations as a person reads them: one run's scores per task and overall (lib/pass-k.ts over its stored trials,
 * as τ²-bench reports them), an environment's leaderboard of every evaluation — API models, checkpoints, the gold
 * replay — grouped by task set and k, and the overlay of several evaluations for the compare view.
 */
import type { PrismaClient } from "../../db/client";
import { evalTaskSet, isEvaluation, policyLabel } from "../../lib/eval-config";
import { summariseTrials, type EvalSummary, type EvalTrial } from "../../lib/pass-k";
import { parseRunConfig, type RunConfig } from "../../lib/run-config";
import { successRuleFor } from "../../lib/success-rules";
import { notFound } from "../errors";

/** The stored config of a run, parsed; null when it no longer parses (an older schema) or is not an evaluation. */
function evalConfigOf(raw: unknown): RunConfig | null {
  try {
    const config = parseRunConfig(raw);
    return isEvaluation(config) ? config : null;
  } catch {
    return null;
  }
}

/** How the policy of an evaluation is described in lists. */
export type EvaluatedPolicyKind = "endpoint" | "scripted" | "checkpoint" | "model";

function policyKind(c: RunConfig): EvaluatedPolicyKind {
  return c.policy.endpoint ? "endpoint" : c.policy.scripted ? "scripted" : c.policy.checkpoint ? "checkpoint" : "model";
}

async function trialsOf(db: PrismaClient, runId: string): Promise<{ trials: EvalTrial[]; unattachedCostUsd: number }> {
  const rows = await db.trajectory.findMany({
    where: { runId, split: "eval" },
    select: { id: true, taskId: true, reward: true, rewardComponents: true },
    orderBy: [{ step: "asc" }, { indexInGroup: "asc" }],
  });
  const costs = await db.llmCall.groupBy({ by: ["trajectoryId"], where: { runId }, _sum: { costUsd: true } });
  const costOf = new Map(costs.map((c) => [c.trajectoryId, c._sum.costUsd ?? 0]));
  const trials = rows.map((r) => ({
    taskId: r.taskId,
    reward: r.reward,
    components: (r.rewardComponents && typeof r.rewardComponents === "object" ? r.rewardComponents : {}) as Record<string, number>,
    costUsd: costOf.get(r.id) ?? 0,
  }));
  // Calls without a trajectory: those of tasks cut short by the cost ceiling or a stop (made and billed all the same).
  return { trials, unattachedCostUsd: costOf.get(null) ?? 0 };
}

async function summaryOf(db: PrismaClient, runId: string, environment: string): Promise<EvalSummary> {
  const { trials, unattachedCostUsd } = await trialsOf(db, runId);
  return summariseTrials(trials, successRuleFor(environment), unattachedCostUsd);
}

export interface EvaluationView {
  runId: string;
  /** false for a training run (its periodic evaluations are on its curves). */
  isEvaluation: boolean;
  policy: string;
  policyKind: EvaluatedPolicyKind | null;
  k: number | null;
  taskSet: { key: string; label: string } | null;
  summary: EvalSummary;
}

/** One run's evaluation scores, per task and overall, from its stored trials. */
export async function getEvaluation(db: PrismaClient, runId: string): Promise<EvaluationView> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true, config: true, policyModel: true, environment: true } });
  if (!run) throw notFound("Run", runId);
  const config = evalConfigOf(run.config);
  const set = config ? evalTaskSet(config) : null;
  return {
    runId,
    isEvaluation: config !== null,
    policy: config ? policyLabel(config) : run.policyModel,
    policyKind: config ? policyKind(config) : null,
    k: config?.eval?.k ?? null,
    taskSet: set && { key: set.key, label: set.label },
    summary: await summaryOf(db, runId, run.environment),
  };
}

export interface LeaderboardEntry {
  runId: string;
  name: string;
  status: string;
  policy: string;
  policyKind: EvaluatedPolicyKind;
  k: number;
  tasks: number;
  trials: number;
  unscored: number;
  passAt1: number | null;
  /** pass^k at the evaluation's own k (null until every task has k scored trials). */
  passHatK: number | null;
  /** pass^1..maxK. */
  passHat: number[];
  rewardMean: number | null;
  costUsd: number;
  createdAt: Date;
}

export interface Leaderboard {
  key: string;
  label: string;
  k: number;
  entries: LeaderboardEntry[];
}

/** Every evaluation of an environment, side by side: one leaderboard per task set and k, best pass^1 first. */
export async function listEnvironmentEvaluations(
  db: PrismaClient,
  environment: string,
): Promise<{ environment: string; successRule: string; leaderboards: Leaderboard[] }> {
  const ids = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM "Run" WHERE environment = ${environment} AND config -> 'eval' IS NOT NULL AND config -> 'eval' <> 'null'::jsonb
    ORDER BY "createdAt" DESC LIMIT 500`;
  const runs = await db.run.findMany({
    where: { id: { in: ids.map((r) => r.id) } },
    select: { id: true, name: true, status: true, config: true, createdAt: true },
    orderBy: { createdAt: "desc" },
  });
  const boards = new Map<string, Leaderboard>();
  for (const run of runs) {
    const config = evalConfigOf(run.config);
    const set = config && evalTaskSet(config);
    if (!config || !set) continue;
    const s = await summaryOf(db, run.id, environment);
    const boardKey = `${set.key}|k=${set.k}`;
    const board = boards.get(boardKey) ?? { key: boardKey, label: set.label, k: set.k, entries: [] };
    board.entries.push({
      runId: run.id,
      name: run.name,
      status: run.status,
      policy: policyLabel(config),
      policyKind: policyKind(config),
      k: set.k,
      tasks: s.tasks,
      trials: s.trials,
      unscored: s.unscored,
      passAt1: s.passHat[1] ?? null,
      passHatK: s.passHat[set.k] ?? null,
      passHat: Array.from({ length: s.maxK }, (_, i) => s.passHat[i + 1]),
      rewardMean: s.rewardMean,
      costUsd: s.costUsd,
      createdAt: run.createdAt,
    });
    boards.set(boardKey, board);
  }
  const byScore = (a: LeaderboardEntry, b: LeaderboardEntry) =>
    (b.passAt1 ?? -1) - (a.passAt1 ?? -1) || (b.rewardMean ?? -1) - (a.rewardMean ?? -1);
  return {
    environment,
    successRule: successRuleFor(environment).text,
    leaderboards: [...boards.values()]
      .map((b) => ({ ...b, entries: b.entries.sort(byScore) }))
      .sort((a, b) => b.entries.length - a.entries.length),
  };
}

/** Several evaluations overlaid: their pass^k curves and, per task, each one's successes of trials. */
export async function compareEvaluations(db: PrismaClient, runIds: string[]) {
  const views = await Promise.all(runIds.map((id) => getEvaluation(db, id).catch(() => null)));
  const evals = views.filter((v): v is EvaluationView => v !== null && v.isEvaluation);
  const taskIds = [...new Set(evals.flatMap((v) => v.summary.perTask.map((t) => t.taskId)))];
  return {
    runs: evals.map((v) => ({
      runId: v.runId,
      policy: v.policy,
      k: v.k,
      taskSet: v.taskSet?.label ?? null,
      passHat: Array.from({ length: v.summary.maxK }, (_, i) => v.summary.passHat[i + 1]),
      rewardMean: v.summary.rewardMean,
      costUsd: v.summary.costUsd,
    })),
    tasks: taskIds.map((taskId) => ({
      taskId,
      cells: evals.map((v) => {
        const t = v.summary.perTask.find((p) => p.taskId === taskId);
        return t ? { successes: t.successes, trials: t.trials, rewardMean: t.rewardMean } : null;
      }),
    })),
  };
}
