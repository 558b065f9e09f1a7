/**
 * Re-scoring jobs: the web app creates them (a trainer worker executes them, trainer/rescore) and reads their
 * results next to the original rewards — agreement, flipped verdicts with both judges' reasoning, and the group
 * advantages the new scoring would have produced. The originals are never modified.
 */
import type { z } from "zod";
import type { Prisma } from "../../generated/prisma/client";
import { compareScorings, judgeReliability, VERDICT_THRESHOLD, type FlipKind } from "../../lib/reward-analysis";
import {
  describeScorer,
  RescoringSelectionSchema,
  ScorerSchema,
  type RescoringSelection,
  type ScoreSample,
  type ScorerInput,
} from "../../lib/rescoring-config";
import { endpointProblems } from "../../lib/llm-endpoint-policy";
import { parseRunConfig } from "../../lib/run-config";
import type { PrismaClient } from "../../db/client";
import { AppError, notFound } from "../errors";

export interface CreateRescoringInput {
  runId: string;
  name?: string;
  selection: z.input<typeof RescoringSelectionSchema>;
  scorer: ScorerInput;
}

function selectionWhere(runId: string, s: RescoringSelection): Prisma.GroupWhereInput {
  return {
    runId,
    ...(s.groupId ? { id: s.groupId } : {}),
    ...(s.taskId ? { taskId: s.taskId } : {}),
    ...(s.split ? { split: s.split } : {}),
    ...(s.stepMin !== undefined || s.stepMax !== undefined ? { step: { gte: s.stepMin, lte: s.stepMax } } : {}),
  };
}

function describeSelection(s: RescoringSelection): string {
  const steps =
    s.stepMin === undefined && s.stepMax === undefined
      ? "all steps"
      : s.stepMin === s.stepMax
        ? `step ${s.stepMin}`
        : `steps ${s.stepMin ?? 0}–${s.stepMax ?? "end"}`;
  return [steps, s.groupId && `group ${s.groupId}`, s.taskId && `task ${s.taskId}`, s.split].filter(Boolean).join(", ");
}

export async function createRescoring(db: PrismaClient, input: CreateRescoringInput) {
  const selection = RescoringSelectionSchema.parse(input.selection);
  const scorer = ScorerSchema.parse(input.scorer);
  if (scorer.kind === "judge" && scorer.endpoint) {
    const problems = endpointProblems(scorer.endpoint, ["scorer", "endpoint"]);
    if (problems.length)
      throw new AppError("BAD_REQUEST", problems.map((p) => `${p.path.join(".")}: ${p.message}`).join(" "), problems[0].path.join("."));
  }
  const run = await db.run.findUnique({ where: { id: input.runId }, select: { id: true } });
  if (!run) throw notFound("Run", input.runId);
  const groups = await db.group.count({ where: selectionWhere(input.runId, selection) });
  if (groups === 0) {
    throw new AppError(
      "BAD_REQUEST",
      `No stored groups match ${describeSelection(selection)} in this run. Widen the step range or clear the group/task filter.`,
      "selection",
    );
  }
  const job = await db.rescoring.create({
    data: {
      runId: input.runId,
      name: input.name?.trim() || `${describeScorer(scorer)} · ${describeSelection(selection)}`,
      selection: selection as unknown as Prisma.InputJsonValue,
      scorer: scorer as unknown as Prisma.InputJsonValue,
    },
    select: { id: true, status: true, name: true },
  });
  return { ...job, groups };
}

function summarise<T extends { selection: unknown; scorer: unknown }>(job: T) {
  const sel = RescoringSelectionSchema.safeParse(job.selection);
  const sc = ScorerSchema.safeParse(job.scorer);
  return {
    ...job,
    selectionLabel: sel.success ? describeSelection(sel.data) : "(invalid selection)",
    scorerLabel: sc.success ? describeScorer(sc.data) : "(invalid scorer)",
  };
}

export async function listRescorings(db: PrismaClient, input: { runId: string }) {
  const jobs = await db.rescoring.findMany({ where: { runId: input.runId }, orderBy: { createdAt: "desc" }, take: 100 });
  return jobs.map(summarise);
}

export interface RescoredTrajectory {
  trajectoryId: string;
  step: number;
  split: string;
  groupId: string;
  taskId: string;
  indexInGroup: number;
  oldReward: number | null;
  newReward: number | null;
  oldAdvantage: number | null;
  newAdvantage: number | null;
  oldReasoning: string | null;
  newReasoning: string | null;
  flip: FlipKind | null;
  agreement: number | null;
  rewardStd: number | null;
  samples: ScoreSample[];
  llmCallIds: string[];
}

function flipRank(f: FlipKind | null): number {
  return f === "pass_to_fail" || f === "fail_to_pass" ? 0 : f ? 1 : 2;
}

function perStepOf(config: unknown): number {
  try {
    const c = parseRunConfig(config);
    return c.grpo.groupsPerStep * c.grpo.groupSize;
  } catch {
    return 16;
  }
}

export async function getRescoring(
  db: PrismaClient,
  input: { runId: string; rescoringId: string; onlyFlipped?: boolean; threshold?: number },
) {
  const job = await db.rescoring.findUnique({
    where: { id: input.rescoringId },
    include: { run: { select: { config: true, name: true } } },
  });
  if (!job || job.runId !== input.runId) throw notFound("Re-scoring", input.rescoringId);
  const scores = await db.trajectoryScore.findMany({
    where: { rescoringId: job.id },
    include: {
      trajectory: {
        select: {
          step: true,
          split: true,
          groupId: true,
          taskId: true,
          indexInGroup: true,
          reward: true,
          advantage: true,
          reasoning: true,
        },
      },
    },
  });
  const threshold = input.threshold ?? VERDICT_THRESHOLD;
  const comparison = compareScorings(
    scores.map((s) => ({ trajectoryId: s.trajectoryId, oldReward: s.trajectory.reward, newReward: s.reward })),
    threshold,
  );
  const flipOf = new Map(comparison.flips.map((f) => [f.trajectoryId, f.kind]));
  const rows: RescoredTrajectory[] = scores
    .map((s) => ({
      trajectoryId: s.trajectoryId,
      step: s.trajectory.step,
      split: s.trajectory.split,
      groupId: s.trajectory.groupId,
      taskId: s.trajectory.taskId,
      indexInGroup: s.trajectory.indexInGroup,
      oldReward: s.trajectory.reward,
      newReward: s.reward,
      oldAdvantage: s.trajectory.advantage,
      newAdvantage: s.advantage,
      oldReasoning: s.trajectory.reasoning,
      newReasoning: s.reasoning,
      flip: flipOf.get(s.trajectoryId) ?? null,
      agreement: s.agreement,
      rewardStd: s.rewardStd,
      samples: (Array.isArray(s.samples) ? s.samples : []) as unknown as ScoreSample[],
      llmCallIds: s.llmCallIds,
    }))
    .filter((r) => !input.onlyFlipped || r.flip !== null)
    // Verdict flips first (what the user came for), then scored/unscored changes, then in the run's order.
    .sort(
      (a, b) =>
        flipRank(a.flip) - flipRank(b.flip) || a.step - b.step || a.groupId.localeCompare(b.groupId) || a.indexInGroup - b.indexInGroup,
    );
  const reliability = judgeReliability(
    scores.map((s) => ((Array.isArray(s.samples) ? s.samples : []) as unknown as ScoreSample[]).map((x) => x.reward)),
    perStepOf(job.run.config),
    threshold,
  );
  const { run, ...rest } = summarise(job);
  return {
    job: { ...rest, runName: run.name },
    threshold,
    comparison: {
      ...comparison,
      flips: comparison.flips.length,
      flippedToFail: comparison.flips.filter((f) => f.kind === "pass_to_fail").length,
      flippedToPass: comparison.flips.filter((f) => f.kind === "fail_to_pass").length,
    },
    reliability,
    rows,
  };
}
