/**
 * DAPO (Yu et al. 2025, "DAPO: An Open-Source LLM Reinforcement Learning System at Scale") reward-side tricks,
 * on plain numbers.
 *
 * Dynamic sampling (sec. 3.2; verl recipe/dapo/dapo_ray_trainer.py): a group whose rewards are all equal has all
 * advantages 0 and only dilutes the batch, so it is dropped and more prompts are sampled until the batch holds
 * `trainBatchSize` informative groups. Upstream keeps a group iff np.std(values) > 0 (population std, the one
 * place the reference uses N) or it has exactly one value.
 *
 * Overlong penalty (sec. 3.4 "soft overlong punishment"; verl workers/reward_manager/dapo.py): responses longer
 * than maxResponseLength - bufferLength lose reward linearly, reaching -penaltyFactor at maxResponseLength.
 */
import { groupIndices, isScorable, std } from "./advantages";

/** Upstream keep rule for one group's metric values (unscorable values must already be removed). */
export function shouldKeepGroup(values: readonly number[]): boolean {
  return values.length === 1 || std(values, "population") > 0;
}

export interface DynamicSamplingFilterResult {
  /** Group ids kept, in order of first appearance. */
  keptGroupIds: (string | number)[];
  droppedGroupIds: (string | number)[];
  /** Per sample: true if its group is kept. */
  keepSample: boolean[];
}

/**
 * Applies the keep rule to every group of a generation batch. Unscorable (null) samples are ignored when judging
 * a group; a group with no scored sample is dropped (it carries no learning signal).
 */
export function filterDynamicSamplingGroups(
  metric: readonly (number | null)[],
  groupIds: readonly (string | number)[],
): DynamicSamplingFilterResult {
  if (metric.length !== groupIds.length) {
    throw new Error(`metric (${metric.length}) and groupIds (${groupIds.length}) must have the same length`);
  }
  const keptGroupIds: (string | number)[] = [];
  const droppedGroupIds: (string | number)[] = [];
  const keep = new Set<string | number>();
  for (const [groupId, members] of groupIndices(groupIds)) {
    const values = members.map((i) => metric[i]).filter(isScorable);
    if (values.length > 0 && shouldKeepGroup(values)) {
      keep.add(groupId);
      keptGroupIds.push(groupId);
    } else {
      droppedGroupIds.push(groupId);
    }
  }
  return { keptGroupIds, droppedGroupIds, keepSample: groupIds.map((id) => keep.has(id)) };
}

export type DynamicSamplingDecision = "train" | "sample-more" | "give-up";

/**
 * Whether the accumulated batch is ready: "train" once keptGroups >= trainBatchSize (then truncate to exactly
 * trainBatchSize groups), "sample-more" while generation batches remain, "give-up" when maxGenBatches (> 0) is
 * reached without enough groups (upstream raises: the data is too easy or too hard for the current policy).
 */
export function decideDynamicSampling(
  keptGroups: number,
  trainBatchSize: number,
  genBatchesUsed: number,
  maxGenBatches: number,
): DynamicSamplingDecision {
  if (keptGroups >= trainBatchSize) return "train";
  if (maxGenBatches > 0 && genBatchesUsed >= maxGenBatches) return "give-up";
  return "sample-more";
}

export interface OverlongPenaltyOptions {
  /** Maximum response length in tokens (generation is cut there). */
  maxResponseLength: number;
  /** Length of the soft zone before the maximum (DAPO: 4096 of 20480). */
  bufferLength: number;
  /** Penalty at the maximum length (DAPO: 1.0). */
  penaltyFactor: number;
}

/** Reward to ADD for a response of `responseLength` tokens: 0 up to max - buffer, then linearly down. */
export function computeOverlongPenalty(responseLength: number, opts: OverlongPenaltyOptions): number {
  if (!(opts.bufferLength > 0) || opts.bufferLength > opts.maxResponseLength) {
    throw new Error(`bufferLength must be in (0, maxResponseLength] (got ${opts.bufferLength} of ${opts.maxResponseLength})`);
  }
  const expectedLength = opts.maxResponseLength - opts.bufferLength;
  const exceed = responseLength - expectedLength;
  if (exceed <= 0) return 0; // not -0: the value is stored and shown
  return Math.min((-exceed / opts.bufferLength) * opts.penaltyFactor, 0);
}
