/**
 * The GRPO policy update (Shao et al. 2024, DeepSeekMath sec. 4): scored trajectories of all groups are shuffled
 * into mini-batches; each mini-batch is one optimizer step; the whole set is passed `ppoEpochs` times, as verl's
 * `dp_actor.update_policy` does (ppo_epochs x ppo_mini_batch_size, micro-batches accumulating gradients).
 * The loss itself is trainer/grpo's `computePolicyLoss` (clipped surrogate + KL to a frozen reference + entropy).
 */
import * as tf from "@tensorflow/tfjs";
import { computePolicyLoss, computeTokenStats, type PolicyLossConfig } from "../grpo/index";
import type { DecoderLM } from "../policy/model";
import type { AdamW } from "../policy/optimizer";
import { computeLogProbsYielding, padBatch, padMatrix, tokenLogProbs } from "../policy/logprobs";
import { Rng } from "../policy/rng";
import { GuardedStepper, type StepOutcome } from "./step";

/** One trajectory ready for the update. Every per-token array is aligned with `tokens` (see policy/logprobs.ts). */
export interface ScoredTrajectory {
  tokens: number[];
  /** 1 for policy-generated tokens, 0 for prompt / user / tool / simulator tokens. */
  lossMask: number[];
  /** Per-token advantages (outcome advantage broadcast over the policy tokens, or multi-turn credit). */
  advantages: number[];
  /** Log-probs under the policy that sampled the rollout; recomputed with the current weights when absent. */
  oldLogProbs?: number[];
  /** Reference-policy log-probs; computed with `reference` when absent and the loss needs them. */
  refLogProbs?: number[];
}

export interface GrpoUpdateConfig {
  loss: PolicyLossConfig;
  /** Trajectories per optimizer step. */
  miniBatchSize: number;
  /** Trajectories per forward/backward pass (gradient accumulation); default = miniBatchSize. */
  microBatchSize?: number;
  ppoEpochs: number;
  /** Consecutive non-finite steps tolerated before failing (default 3). */
  maxConsecutiveBadSteps?: number;
  /** The rollout's sampling temperature: every log-prob of the update divides the logits by it (default 1). */
  temperature?: number;
  /**
   * Leave rows whose advantages are all 0 out of the forward/backward pass when the loss has no KL or entropy term:
   * their policy-gradient loss is exactly 0, and the aggregation keeps the full micro-batch's denominators, so the
   * gradient is the same (default true).
   */
  skipZeroAdvantageRows?: boolean;
  /**
   * Keep, per trajectory, what the last pass over it did to each token (ratio, clip branch, KL): the inspector's
   * policy view. One read-back of [B, T] values per micro-batch.
   */
  recordTokenStats?: boolean;
}

/** Per token of one trajectory (aligned with its tokens), at the last update pass that computed it. */
export interface TokenUpdateStats {
  ratio: number[];
  /** 0 the trust region did not bind, 1 the PPO clip bound, 2 the dual-clip cap bound. */
  clipCode: number[];
  /** Per-token KL to the reference, when the update had reference log-probs. */
  kl: number[] | null;
}

export interface UpdateReport {
  steps: StepOutcome[];
  skippedSteps: number;
  /** Rows left out of the forward/backward passes because their advantages were all 0 (counted per epoch). */
  zeroAdvantageRowsSkipped: number;
  /** Means over applied steps: loss, grad_norm, lr and every computePolicyLoss metric. */
  metrics: Record<string, number>;
  /** With recordTokenStats: per trajectory the update computed (rows it left out have none). */
  tokenStats?: Map<ScoredTrajectory, TokenUpdateStats>;
}

export class GrpoUpdater {
  private readonly stepper: GuardedStepper;
  private tokenStats: Map<ScoredTrajectory, TokenUpdateStats> | null = null;

  constructor(
    readonly model: DecoderLM,
    optimizer: AdamW,
    readonly config: GrpoUpdateConfig,
    /** Frozen reference policy for the KL term (policy/model.ts frozenCopy()). */
    readonly reference?: DecoderLM,
  ) {
    if (!(config.miniBatchSize >= 1)) throw new Error("miniBatchSize must be >= 1");
    if (!(config.ppoEpochs >= 1)) throw new Error("ppoEpochs must be >= 1");
    this.stepper = new GuardedStepper(model, optimizer, config.maxConsecutiveBadSteps ?? 3);
  }

  /** Fills in old / reference log-probs that the rollout did not record. */
  async prepare(trajs: ScoredTrajectory[], signal?: AbortSignal): Promise<ScoredTrajectory[]> {
    for (const t of trajs) {
      if (t.lossMask.length !== t.tokens.length || t.advantages.length !== t.tokens.length) {
        throw new Error(
          `trajectory arrays must align with tokens (${t.tokens.length}); got mask ${t.lossMask.length}, advantages ${t.advantages.length}`,
        );
      }
    }
    const needOld = trajs.filter((t) => !t.oldLogProbs);
    const temperature = this.config.temperature ?? 1;
    if (needOld.length)
      (
        await computeLogProbsYielding(
          this.model,
          needOld.map((t) => t.tokens),
          signal,
          8,
          temperature,
        )
      ).forEach((lp, i) => (needOld[i].oldLogProbs = lp));
    if (this.config.loss.klCoef !== 0) {
      const needRef = trajs.filter((t) => !t.refLogProbs);
      if (needRef.length && !this.reference) throw new Error("klCoef != 0 needs a reference model or refLogProbs on every trajectory");
      if (needRef.length && this.reference) {
        (
          await computeLogProbsYielding(
            this.reference,
            needRef.map((t) => t.tokens),
            signal,
            8,
            temperature,
          )
        ).forEach((lp, i) => (needRef[i].refLogProbs = lp));
      }
    }
    return trajs;
  }

  /**
   * The loss of one micro-batch. `rows` are the trajectories computed; `full` is the micro-batch they stand for
   * (the same, unless zero-advantage rows were left out): its denominators and padded length make the loss and
   * gradient those of the full micro-batch.
   */
  private microLoss(rows: ScoredTrajectory[], full: ScoredTrajectory[] = rows) {
    return () => {
      const batch = padBatch(rows.map((t) => t.tokens));
      const { B, T } = batch;
      const mat = (values: number[][]) => tf.tensor2d(padMatrix(values, T), [B, T]);
      const wantEntropy = this.config.loss.entropyCoef !== 0;
      const { logp, entropy } = tokenLogProbs(this.model, batch, wantEntropy, this.config.temperature ?? 1);
      const fullT = Math.max(...full.map((t) => t.tokens.length));
      const dropped = rows.length !== full.length;
      const oldLogProbs = mat(rows.map((t) => t.oldLogProbs as number[]));
      const advantages = mat(rows.map((t) => t.advantages));
      const refLogProbs = rows.every((t) => t.refLogProbs) ? mat(rows.map((t) => t.refLogProbs as number[])) : undefined;
      if (this.tokenStats) this.keepTokenStats(rows, T, { logProbs: logp, oldLogProbs, advantages, refLogProbs });
      return computePolicyLoss(
        {
          logProbs: logp,
          oldLogProbs,
          advantages,
          mask: mat(rows.map((t) => t.lossMask)),
          refLogProbs,
          entropy,
        },
        {
          ...this.config.loss,
          maxTokens: this.config.loss.maxTokens ?? fullT,
          ...(dropped && {
            batchRows: full.length,
            batchTokens: full.reduce((n, t) => n + t.lossMask.reduce((a, m) => a + (m > 0 ? 1 : 0), 0), 0),
          }),
        },
      );
    };
  }

  /** Reads the micro-batch's per-token stats back and files them under each row (a later pass overwrites). */
  private keepTokenStats(rows: ScoredTrajectory[], T: number, input: Parameters<typeof computeTokenStats>[0]): void {
    const stats = computeTokenStats(input, this.config.loss);
    try {
      const [ratio, clip, kl] = [stats.ratio.dataSync(), stats.clipCode.dataSync(), stats.kl?.dataSync()];
      rows.forEach((t, b) => {
        const row = (v: ArrayLike<number>) => Array.from((v as Float32Array).subarray(b * T, b * T + t.tokens.length));
        this.tokenStats?.set(t, { ratio: row(ratio), clipCode: row(clip), kl: kl ? row(kl) : null });
      });
    } finally {
      stats.ratio.dispose();
      stats.clipCode.dispose();
      stats.kl?.dispose();
    }
  }

  /** Whether zero-advantage rows may be left out: nothing but the policy-gradient term in the loss. */
  private get skipsZeroAdvantage(): boolean {
    return (this.config.skipZeroAdvantageRows ?? true) && this.config.loss.klCoef === 0 && this.config.loss.entropyCoef === 0;
  }

  /**
   * Runs the update over all groups' trajectories. Throws NonFiniteUpdateError after repeated NaN/Inf steps, and
   * the abort reason when `signal` fires (checked between micro-batches; weights may then hold some of this
   * update's optimizer steps, so the caller must not checkpoint them as a completed training step).
   */
  async update(groups: ScoredTrajectory[][], rng: Rng, signal?: AbortSignal): Promise<UpdateReport> {
    const trajs = await this.prepare(
      groups.flat().filter((t) => t.lossMask.some((m) => m > 0)),
      signal,
    );
    const steps: StepOutcome[] = [];
    this.tokenStats = this.config.recordTokenStats ? new Map() : null;
    const mini = this.config.miniBatchSize;
    const micro = Math.min(this.config.microBatchSize ?? mini, mini);
    const isZero = (t: ScoredTrajectory) => t.advantages.every((a, i) => a === 0 || t.lossMask[i] === 0);
    let zeroSkipped = 0;
    for (let epoch = 0; epoch < this.config.ppoEpochs; epoch++) {
      const order = rng.shuffle([...trajs.keys()]);
      for (let s = 0; s < order.length; s += mini) {
        const mb = order.slice(s, s + mini).map((i) => trajs[i]);
        const parts: { weight: number; loss: () => ReturnType<typeof computePolicyLoss>; metricWeight?: number }[] = [];
        for (let m = 0; m < mb.length; m += micro) {
          const chunk = mb.slice(m, m + micro);
          const weight = chunk.length / mb.length;
          const kept = this.skipsZeroAdvantage ? chunk.filter((t) => !isZero(t)) : chunk;
          zeroSkipped += chunk.length - kept.length;
          if (kept.length === 0) continue; // contributes exactly 0 to the gradient
          parts.push({ weight, loss: this.microLoss(kept, chunk) });
        }
        if (parts.length === 0) {
          // Every row is zero: the gradient is 0, but the optimizer still steps (AdamW's momentum and weight decay
          // move the weights), so one micro-batch is computed in full to keep the step exactly as it would be.
          const chunk = mb.slice(0, micro);
          zeroSkipped -= chunk.length; // counted as skipped above, computed after all
          parts.push({ weight: chunk.length / mb.length, loss: this.microLoss(chunk) });
        }
        // Metrics average over the micro-batches computed.
        const computed = parts.reduce((a, p) => a + p.weight, 0);
        for (const p of parts) p.metricWeight = p.weight / computed;
        steps.push(await this.stepper.step(parts, signal));
      }
    }
    const tokenStats = this.tokenStats ?? undefined;
    this.tokenStats = null;
    return { ...summarize(steps), zeroAdvantageRowsSkipped: zeroSkipped, ...(tokenStats && { tokenStats }) };
  }
}

export function summarize(steps: StepOutcome[]): UpdateReport {
  const applied = steps.filter((s) => s.applied);
  const metrics: Record<string, number> = {};
  const add = (k: string, v: number) => (metrics[k] = (metrics[k] ?? 0) + v / Math.max(1, applied.length));
  for (const s of applied) {
    add("loss", s.loss);
    add("grad_norm", s.gradNorm);
    add("lr", s.lr);
    for (const [k, v] of Object.entries(s.metrics)) add(k, v);
  }
  return { steps, skippedSteps: steps.length - applied.length, zeroAdvantageRowsSkipped: 0, metrics };
}
