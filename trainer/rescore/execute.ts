/**
 * Executes one claimed re-scoring job: select the groups, score each trajectory not yet scored (so a reclaimed
 * job resumes), store a TrajectoryScore per trajectory with the LLM calls that produced it, then compute what each
 * group's advantages would have been under the new rewards (the run's own estimator, trainer/grpo). The original
 * Trajectory rows are only read.
 */
import { firstLine } from "../../lib/error-text";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import type { ConversationMessage, LlmCallRecord } from "../../lib/conversation";
import { RescoringSelectionSchema, ScorerSchema, type RescoringSelection, type Scorer } from "../../lib/rescoring-config";
import { parseRunConfig } from "../../lib/run-config";
import { computeGroupAdvantages } from "../grpo/advantages";
import { LlmClient } from "../llm/client";
import { mapLimit } from "../loop/map-limit";
import { finishRescoring, recordProgress } from "./queue";
import { scoreTrajectory } from "./score-trajectory";
import { storable } from "../../lib/storable";
import { LeaseLostError } from "../record/record-step";
import { llmCallRow } from "../record/llm-call-row";

export interface ExecuteRescoringOptions {
  workerId: string;
  leaseMs?: number;
  /** Trajectories judged at once (each may make k judge calls). */
  concurrency?: number;
  /** Where the judge endpoint's apiKeyEnv is looked up (default process.env). */
  env?: Record<string, string | undefined>;
}

export type RescoringOutcome = "succeeded" | "failed" | "lease_lost";

async function selectGroups(db: PrismaClient, runId: string, sel: RescoringSelection) {
  const groups = await db.group.findMany({
    where: {
      runId,
      ...(sel.groupId ? { id: sel.groupId } : {}),
      ...(sel.taskId ? { taskId: sel.taskId } : {}),
      ...(sel.split ? { split: sel.split } : {}),
      ...(sel.stepMin !== undefined || sel.stepMax !== undefined ? { step: { gte: sel.stepMin, lte: sel.stepMax } } : {}),
    },
    orderBy: [{ step: "asc" }, { split: "asc" }, { indexInStep: "asc" }],
    select: {
      id: true,
      task: true,
      trajectories: {
        orderBy: { indexInGroup: "asc" },
        select: {
          id: true,
          conversation: true,
          rewardComponents: true,
          finalState: true,
          expectedState: true,
          status: true,
          endReason: true,
        },
      },
    },
  });
  const picked: typeof groups = [];
  let count = 0;
  for (const g of groups) {
    // Whole groups only: an advantage is defined relative to all of a group's samples.
    if (picked.length > 0 && count + g.trajectories.length > sel.maxTrajectories) break;
    picked.push(g);
    count += g.trajectories.length;
  }
  return picked;
}

function estimatorOf(config: unknown): string {
  try {
    return parseRunConfig(config).grpo.advantageEstimator;
  } catch {
    return "grpo"; // runs stored before a config change still get the default GRPO advantages
  }
}

function llmFor(scorer: Scorer, env?: Record<string, string | undefined>): LlmClient {
  const ep = scorer.kind === "judge" ? scorer.endpoint : undefined;
  return new LlmClient(
    {
      endpoints: ep
        ? {
            judge: {
              baseUrl: ep.baseUrl,
              model: ep.model,
              apiKeyEnv: ep.apiKeyEnv,
              params: { temperature: ep.temperature, max_tokens: ep.maxTokens },
            },
          }
        : {},
      concurrency: 8,
      retry: { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 10_000, maxRetryAfterMs: 30_000 },
    },
    { env },
  );
}

function callRow(c: LlmCallRecord, runId: string, trajectoryId: string, rescoringId: string): Prisma.LlmCallCreateManyInput {
  const row = llmCallRow(c, runId, trajectoryId);
  return {
    ...row,
    // The marker that tells these calls apart from the ones made during training.
    request: { ...row.request, params: { ...row.request.params, rescoringId } } as unknown as Prisma.InputJsonValue,
    response: (row.response ?? undefined) as Prisma.InputJsonValue | undefined,
  };
}

export async function executeRescoring(db: PrismaClient, rescoringId: string, opts: ExecuteRescoringOptions): Promise<RescoringOutcome> {
  const leaseMs = opts.leaseMs ?? 60_000;
  const job = await db.rescoring.findUnique({ where: { id: rescoringId }, include: { run: { select: { config: true } } } });
  if (!job) return "failed";
  try {
    const selection = RescoringSelectionSchema.parse(job.selection);
    const scorer = ScorerSchema.parse(job.scorer);
    const llm = llmFor(scorer, opts.env);
    const groups = await selectGroups(db, job.runId, selection);
    const all = groups.flatMap((g) => g.trajectories.map((t) => ({ t, task: g.task })));
    const existing = await db.trajectoryScore.findMany({ where: { rescoringId }, select: { trajectoryId: true, reward: true } });
    const done = new Set(existing.map((e) => e.trajectoryId));
    // A resumed job recounts from what is stored, so progress never double-counts.
    await db.rescoring.updateMany({
      where: { id: rescoringId, workerId: opts.workerId },
      data: { total: all.length, done: existing.length, unscored: existing.filter((e) => e.reward === null).length },
    });

    await mapLimit(
      all.filter((x) => !done.has(x.t.id)),
      opts.concurrency ?? 4,
      async ({ t, task }) => {
        const records: LlmCallRecord[] = [];
        const stored = {
          id: t.id,
          conversation: (Array.isArray(t.conversation) ? t.conversation : []) as unknown as ConversationMessage[],
          rewardComponents: (t.rewardComponents && typeof t.rewardComponents === "object" ? t.rewardComponents : {}) as Record<
            string,
            unknown
          >,
          finalState: t.finalState,
          expectedState: t.expectedState,
          status: t.status,
          endReason: t.endReason,
        };
        const r = await scoreTrajectory(
          stored,
          task,
          scorer,
          llm.bind((rec) => records.push(rec)),
          rescoringId,
        );
        await db.$transaction(async (tx) => {
          if (records.length) await tx.llmCall.createMany({ data: storable(records).map((c) => callRow(c, job.runId, t.id, rescoringId)) });
          await tx.trajectoryScore.create({
            data: storable({
              rescoringId,
              trajectoryId: t.id,
              reward: r.reward,
              components: r.components,
              reasoning: r.reasoning,
              samples: r.samples as unknown as Prisma.InputJsonValue,
              agreement: r.agreement,
              rewardStd: r.rewardStd,
              llmCallIds: records.map((c) => c.id),
            }),
          });
        });
        if (!(await recordProgress(db, rescoringId, opts.workerId, leaseMs, { done: 1, unscored: r.reward === null ? 1 : 0 })))
          throw new LeaseLostError(rescoringId, opts.workerId, "Re-scoring job");
      },
    );

    const scores = new Map(
      (await db.trajectoryScore.findMany({ where: { rescoringId }, select: { id: true, trajectoryId: true, reward: true } })).map((s) => [
        s.trajectoryId,
        s,
      ]),
    );
    const members = groups.flatMap((g) => g.trajectories.map((t) => ({ groupId: g.id, score: scores.get(t.id) })));
    const adv = computeGroupAdvantages(
      members.map((m) => m.score?.reward ?? null),
      members.map((m) => m.groupId),
      { estimator: estimatorOf(job.run.config) },
    );
    await db.$transaction(
      members.flatMap((m, i) =>
        m.score
          ? [db.trajectoryScore.update({ where: { id: m.score.id }, data: { advantage: adv.scored[i] ? adv.advantages[i] : null } })]
          : [],
      ),
    );
    return (await finishRescoring(db, rescoringId, opts.workerId, "succeeded")) ? "succeeded" : "lease_lost";
  } catch (err) {
    if (err instanceof LeaseLostError) return "lease_lost";
    const message = firstLine(err);
    return (await finishRescoring(db, rescoringId, opts.workerId, "failed", message)) ? "failed" : "lease_lost";
  }
}
