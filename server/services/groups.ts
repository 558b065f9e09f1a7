/**
 * GRPO groups: the samples drawn for one task at one step, read together because GRPO's advantage of each sample
 * is relative to its siblings (Shao et al. 2024, DeepSeekMath §4.1.2). The group view shows them side by side,
 * best first, with where each conversation leaves the others.
 */
import type { ConversationMessage } from "../../lib/conversation";
import { commonPrefixLength, groupDivergence, type SampleDivergence } from "../../lib/conversation-diff";
import type { PrismaClient } from "../../db/client";
import { notFound } from "../errors";

export interface GroupSample extends SampleDivergence {
  id: string;
  indexInGroup: number;
  reward: number | null;
  advantage: number | null;
  status: string;
  endReason: string | null;
  error: string | null;
  numTurns: number;
  rewardComponents: Record<string, number | null>;
  reasoning: string | null;
  conversation: ConversationMessage[];
}

/** Best reward first; unscored samples (null) last, never ranked as 0. Ties keep sampling order. */
export function compareByRewardDesc(
  a: { reward: number | null; indexInGroup: number },
  b: { reward: number | null; indexInGroup: number },
): number {
  if (a.reward === null || b.reward === null) {
    if (a.reward === b.reward) return a.indexInGroup - b.indexInGroup;
    return a.reward === null ? 1 : -1;
  }
  return b.reward - a.reward || a.indexInGroup - b.indexInGroup;
}

export async function getGroup(db: PrismaClient, input: { runId: string; groupId: string }) {
  const group = await db.group.findUnique({
    where: { id: input.groupId },
    include: {
      trajectories: {
        select: {
          id: true,
          indexInGroup: true,
          reward: true,
          advantage: true,
          status: true,
          endReason: true,
          error: true,
          numTurns: true,
          rewardComponents: true,
          reasoning: true,
          conversation: true,
        },
      },
    },
  });
  if (!group || group.runId !== input.runId) throw notFound("Group", input.groupId);
  const sorted = group.trajectories
    .map((t) => ({
      ...t,
      conversation: (Array.isArray(t.conversation) ? t.conversation : []) as unknown as ConversationMessage[],
      rewardComponents: (t.rewardComponents && typeof t.rewardComponents === "object" ? t.rewardComponents : {}) as Record<
        string,
        number | null
      >,
    }))
    .sort(compareByRewardDesc);
  const divergence = groupDivergence(sorted.map((t) => t.conversation));
  const samples: GroupSample[] = sorted.map((t, i) => ({ ...t, ...divergence[i] }));
  const { trajectories: _t, ...meta } = group;
  void _t;
  return { ...meta, sharedPrefix: commonPrefixLength(sorted.map((t) => t.conversation)), samples };
}

/** A run's groups, newest step first, with per-group reward summary (paginated: a long run has thousands). */
/** Which groups by reward spread: those GRPO learns nothing from (std 0) or those it does. */
export type GroupVariance = "all" | "zero" | "nonzero";
export type GroupSort = "step" | "std_desc" | "std_asc";

export async function listGroups(
  db: PrismaClient,
  input: {
    runId: string;
    step?: number;
    taskId?: string;
    split?: string;
    variance?: GroupVariance;
    sort?: GroupSort;
    limit: number;
    offset: number;
  },
) {
  const where = {
    runId: input.runId,
    ...(input.step !== undefined ? { step: input.step } : {}),
    ...(input.taskId ? { taskId: input.taskId } : {}),
    ...(input.split ? { split: input.split } : {}),
    ...(input.variance === "zero" ? { rewardStd: 0 } : input.variance === "nonzero" ? { rewardStd: { gt: 0 } } : {}),
  };
  const byStep = [{ step: "desc" as const }, { split: "asc" as const }, { indexInStep: "asc" as const }];
  const sort = input.sort ?? "step";
  const orderBy =
    sort === "step"
      ? byStep
      : [{ rewardStd: { sort: sort === "std_desc" ? ("desc" as const) : ("asc" as const), nulls: "last" as const } }, ...byStep];
  const [items, total] = await Promise.all([
    db.group.findMany({
      where,
      orderBy,
      take: input.limit,
      skip: input.offset,
      select: {
        id: true,
        step: true,
        indexInStep: true,
        split: true,
        taskId: true,
        rewardMean: true,
        rewardStd: true,
        dropped: true,
        _count: { select: { trajectories: true } },
      },
    }),
    db.group.count({ where }),
  ]);
  return { items: items.map(({ _count, ...g }) => ({ ...g, size: _count.trajectories })), total, limit: input.limit, offset: input.offset };
}
