/**
 * Evaluations as a person reads them: one run's scores per task and overall (lib/pass-k.ts over its stored trials,
 * as τ²-bench reports them), an environment's leaderboard of every evaluation — API models, checkpoints, the gold
 * replay — grouped by task set and k, and the overlay of several evaluations for the compare view.
 */
import { unscoredCauseOf } from "../../lib/unscored-cause";
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
    select: { id: true, taskId: true, reward: true, rewardComponents: true, status: true, reasoning: true },
    orderBy: [{ step: "asc" }, { indexInGroup: "asc" }],
  });
  const costs = await db.llmCall.groupBy({ by: ["trajectoryId"], where: { runId }, _sum: { costUsd: true } });
  const costOf = new Map(costs.map((c) => [c.trajectoryId, c._sum.costUsd ?? 0]));
  const trials = rows.map((r) => ({
    taskId: r.taskId,
    reward: r.reward,
    components: (r.rewardComponents && typeof r.rewardComponents === "object" ? r.rewardComponents : {}) as Record<string, number>,
    costUsd: costOf.get(r.id) ?? 0,
    unscoredCause: unscoredCauseOf(r),
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

/** The tasks an evaluation's worker selected and their label (recorded when it started; eval-run.ts). */
interface RecordedSelection {
  taskIds: string[];
  label: string | null;
}

async function selectionsOf(db: PrismaClient, runIds: string[]): Promise<Map<string, RecordedSelection>> {
  if (runIds.length === 0) return new Map();
  const rows = await db.$queryRaw<{ runId: string; selection: RecordedSelection }[]>`
    SELECT DISTINCT ON ("runId") "runId", data -> 'evalSelection' AS selection FROM "RunEvent"
    WHERE "runId" = ANY(${runIds}) AND data -> 'evalSelection' IS NOT NULL ORDER BY "runId", id DESC`;
  return new Map(rows.filter((r) => Array.isArray(r.selection?.taskIds)).map((r) => [r.runId, r.selection]));
}

/**
 * What makes two evaluations comparable: the environment, its options and dataset, k, and the tasks the worker
 * actually selected (the config alone may select different tasks, e.g. a split with none in it). A run not started
 * yet is keyed by its config.
 */
function taskSetOf(config: RunConfig, selection: RecordedSelection | undefined): { key: string; label: string; k: number } | null {
  const set = evalTaskSet(config);
  if (!set) return null;
  if (!selection) return set;
  const key = JSON.stringify({
    environment: config.environment,
    options: JSON.parse(set.key).options,
    dataset: config.dataset.path ?? null,
    tasks: [...selection.taskIds].sort(),
  });
  return { key, label: selection.label ?? `${config.dataset.path ?? "built-in tasks"} · ${selection.taskIds.length} tasks`, k: set.k };
}

/** One run's evaluation scores, per task and overall, from its stored trials. */
export async function getEvaluation(db: PrismaClient, runId: string): Promise<EvaluationView> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true, config: true, policyModel: true, environment: true } });
  if (!run) throw notFound("Run", runId);
  const config = evalConfigOf(run.config);
  const set = config ? taskSetOf(config, (await selectionsOf(db, [runId])).get(runId)) : null;
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
  /** Tasks recorded (each with its k trials) out of the tasks selected (null until the worker has selected them). */
  coverage: { evaluated: number; selected: number | null };
  /** Finished (succeeded) with every selected task recorded: only these are ranked. */
  complete: boolean;
  createdAt: Date;
}

export interface Leaderboard {
  key: string;
  label: string;
  k: number;
  /** Complete evaluations, best pass@1 first. */
  entries: LeaderboardEntry[];
  /** Runs cancelled, failed or still going: shown apart with their coverage, never ranked. */
  partial: LeaderboardEntry[];
}

/**
 * Every evaluation of an environment side by side: one leaderboard per task set and k, complete runs ranked by
 * pass@1, partial ones (cancelled at the cost ceiling, failed, still running) listed apart with their coverage —
 * a run that scored 2 of 5 tasks is no peer of one that scored all 5.
 */
export async function listEnvironmentEvaluations(
  db: PrismaClient,
  environment: string,
): Promise<{ environment: string; successRule: string; leaderboards: Leaderboard[] }> {
  const ids = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM "Run" WHERE environment = ${environment} AND config -> 'eval' IS NOT NULL AND config -> 'eval' <> 'null'::jsonb
    ORDER BY "createdAt" DESC LIMIT 500`;
  const runs = await db.run.findMany({
    where: { id: { in: ids.map((r) => r.id) } },
    select: { id: true, name: true, status: true, config: true, createdAt: true, step: true },
    orderBy: { createdAt: "desc" },
  });
  const selections = await selectionsOf(
    db,
    runs.map((r) => r.id),
  );
  const boards = new Map<string, Leaderboard>();
  for (const run of runs) {
    const config = evalConfigOf(run.config);
    const selection = selections.get(run.id);
    const set = config && taskSetOf(config, selection);
    if (!config || !set) continue;
    const s = await summaryOf(db, run.id, environment);
    const selected = selection?.taskIds.length ?? null;
    // Step i is task i: the recorded steps are the tasks done with all their trials.
    const evaluated = Math.min(run.step, selected ?? run.step);
    const boardKey = `${set.key}|k=${set.k}`;
    const board = boards.get(boardKey) ?? { key: boardKey, label: set.label, k: set.k, entries: [], partial: [] };
    const entry: LeaderboardEntry = {
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
      coverage: { evaluated, selected },
      complete: run.status === "succeeded" && selected !== null && evaluated >= selected,
      createdAt: run.createdAt,
    };
    (entry.complete ? board.entries : board.partial).push(entry);
    boards.set(boardKey, board);
  }
  const byScore = (a: LeaderboardEntry, b: LeaderboardEntry) =>
    (b.passAt1 ?? -1) - (a.passAt1 ?? -1) || (b.rewardMean ?? -1) - (a.rewardMean ?? -1);
  const byCoverage = (a: LeaderboardEntry, b: LeaderboardEntry) =>
    b.coverage.evaluated - a.coverage.evaluated || b.createdAt.getTime() - a.createdAt.getTime();
  return {
    environment,
    successRule: successRuleFor(environment).text,
    leaderboards: [...boards.values()]
      .map((b) => ({ ...b, entries: b.entries.sort(byScore), partial: b.partial.sort(byCoverage) }))
      .sort((a, b) => b.entries.length + b.partial.length - (a.entries.length + a.partial.length)),
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
