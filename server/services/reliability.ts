/**
 * Judge reliability for a run: from every finished re-judging that took k ≥ 2 judgements per trajectory, the judge's
 * agreement with itself, its reward variance and the noise floor it puts on a step's mean reward; and how often
 * different judges (the original scoring and each re-scoring) agree on the same trajectories. Shown on the run page
 * so a user can tell which reward differences are real (τ²-bench: 8-9 points of run-to-run noise).
 */
import { judgeReliability, pairwiseAgreement, type ReliabilityReport } from "../../lib/reward-analysis";
import { describeScorer, ScorerSchema, type ScoreSample } from "../../lib/rescoring-config";
import { parseRunConfig } from "../../lib/run-config";
import type { PrismaClient } from "../../db/client";
import { notFound } from "../errors";

const MAX_JUDGES = 6;

export async function getRunReliability(db: PrismaClient, input: { runId: string }) {
  const run = await db.run.findUnique({ where: { id: input.runId }, select: { id: true, config: true } });
  if (!run) throw notFound("Run", input.runId);
  let perStep = 16;
  try {
    const c = parseRunConfig(run.config);
    perStep = c.grpo.groupsPerStep * c.grpo.groupSize;
  } catch {
    // keep the default: an old config still gets a (rougher) noise floor
  }
  const jobs = await db.rescoring.findMany({
    where: { runId: input.runId, status: "succeeded" },
    orderBy: { createdAt: "desc" },
    take: MAX_JUDGES,
    select: {
      id: true,
      name: true,
      scorer: true,
      createdAt: true,
      scores: { select: { trajectoryId: true, reward: true, samples: true, trajectory: { select: { reward: true } } } },
    },
  });
  const judges = jobs.map((j) => {
    const sc = ScorerSchema.safeParse(j.scorer);
    const report: ReliabilityReport = judgeReliability(
      j.scores.map((s) => ((Array.isArray(s.samples) ? s.samples : []) as unknown as ScoreSample[]).map((x) => x.reward)),
      perStep,
    );
    return {
      id: j.id,
      name: j.name,
      scorerLabel: sc.success ? describeScorer(sc.data) : "(invalid)",
      createdAt: j.createdAt,
      trajectories: j.scores.length,
      reliability: report,
    };
  });

  const original = new Map<string, number | null>();
  for (const j of jobs) for (const s of j.scores) original.set(s.trajectoryId, s.trajectory.reward);
  const maps = jobs.map((j) => new Map(j.scores.map((s) => [s.trajectoryId, s.reward])));
  const agreements: { a: string; b: string; compared: number; agreementRate: number | null }[] = [];
  jobs.forEach((j, i) => {
    agreements.push({ a: "original", b: j.id, ...pairwiseAgreement(original, maps[i]) });
    for (let k = i + 1; k < jobs.length; k++) agreements.push({ a: j.id, b: jobs[k].id, ...pairwiseAgreement(maps[i], maps[k]) });
  });

  // The run's noise floor: the most recent measurement with repeated judgements.
  const measured = judges.find((j) => j.reliability.noiseFloor !== null) ?? null;
  return {
    perStep,
    noiseFloor: measured?.reliability.noiseFloor ?? null,
    noiseFloorFrom: measured ? { id: measured.id, name: measured.name, samples: measured.reliability.samplesPerTrajectory } : null,
    judges,
    agreements: agreements.filter((a) => a.compared > 0),
  };
}
