/**
 * Supervised warm-start (behaviour cloning on demonstration trajectories): masked next-token cross-entropy over the
 * policy's own tokens only. All five seed systems start RL from an SFT'd model; here it is the optional first stage.
 */
import * as tf from "@tensorflow/tfjs";
import type { DecoderLM } from "../policy/model";
import type { AdamW } from "../policy/optimizer";
import { padBatch, padMatrix, tokenLogProbs } from "../policy/logprobs";
import { Rng } from "../policy/rng";
import { GuardedStepper, type StepOutcome } from "./step";

export interface Demonstration {
  tokens: number[];
  /** 1 for tokens to imitate (the policy's turns), 0 for context. */
  lossMask: number[];
}

export interface SftConfig {
  epochs: number;
  batchSize: number;
  maxConsecutiveBadSteps?: number;
}

/** Token-mean masked negative log-likelihood of a batch (differentiable). */
export function maskedNll(model: DecoderLM, demos: Demonstration[]): tf.Scalar {
  const batch = padBatch(demos.map((d) => d.tokens));
  const mask = tf.tensor2d(
    padMatrix(
      demos.map((d) => d.lossMask),
      batch.T,
    ),
    [batch.B, batch.T],
  );
  const { logp } = tokenLogProbs(model, batch);
  return tf.div(tf.neg(tf.sum(tf.mul(logp, mask))), tf.maximum(tf.sum(mask), 1)) as tf.Scalar;
}

/** Runs `epochs` passes of shuffled mini-batches; returns every step (loss = mean NLL per policy token). */
export async function runSft(model: DecoderLM, optimizer: AdamW, demos: Demonstration[], cfg: SftConfig, rng: Rng): Promise<StepOutcome[]> {
  const stepper = new GuardedStepper(model, optimizer, cfg.maxConsecutiveBadSteps ?? 3);
  const steps: StepOutcome[] = [];
  for (let e = 0; e < cfg.epochs; e++) {
    const order = rng.shuffle([...demos.keys()]);
    for (let i = 0; i < order.length; i += cfg.batchSize) {
      const chunk = order.slice(i, i + cfg.batchSize).map((k) => demos[k]);
      steps.push(await stepper.step([{ weight: 1, loss: () => ({ loss: maskedNll(model, chunk), metrics: {} }) }]));
    }
  }
  return steps;
}

export interface SftStepsConfig {
  /** Optimizer steps to take (TRL's max_steps). */
  steps: number;
  /** Demonstrations per step (at most the number there are). */
  batchSize: number;
  /** Demonstrations per forward/backward pass (gradients accumulate over the step); default batchSize. */
  microBatchSize?: number;
  maxConsecutiveBadSteps?: number;
  /** Checked before each step: true ends the stage early (the worker is stopping). */
  shouldStop?: () => boolean;
  /** Aborts between steps and micro-batches (cancel, lease lost). */
  signal?: AbortSignal;
  /** After each step (0-based index): the run page shows the warm-up's loss and ETA as it goes. */
  onStep?: (outcome: StepOutcome, index: number) => void | Promise<void>;
}

/**
 * `steps` optimizer steps, cycling through the demonstrations in a fresh shuffled order per pass (a batch may
 * straddle two passes). The stepper yields to the event loop around each step: each is synchronous TF.js work, and a
 * long warm-start must not starve the worker's lease heartbeats.
 */
export async function runSftSteps(
  model: DecoderLM,
  optimizer: AdamW,
  demos: Demonstration[],
  cfg: SftStepsConfig,
  rng: Rng,
): Promise<StepOutcome[]> {
  if (demos.length === 0) throw new Error("runSftSteps needs at least one demonstration");
  const stepper = new GuardedStepper(model, optimizer, cfg.maxConsecutiveBadSteps ?? 3);
  const batchSize = Math.max(1, Math.min(cfg.batchSize, demos.length));
  let order: number[] = [];
  const next = (): Demonstration => {
    if (order.length === 0) order = rng.shuffle([...demos.keys()]);
    return demos[order.pop() as number];
  };
  const steps: StepOutcome[] = [];
  for (let s = 0; s < cfg.steps && !cfg.shouldStop?.(); s++) {
    const batch = Array.from({ length: batchSize }, next);
    const micro = Math.max(1, Math.min(cfg.microBatchSize ?? batch.length, batch.length));
    const parts = [];
    for (let m = 0; m < batch.length; m += micro) {
      const chunk = batch.slice(m, m + micro);
      parts.push({ weight: chunk.length / batch.length, loss: () => ({ loss: maskedNll(model, chunk), metrics: {} }) });
    }
    const outcome = await stepper.step(parts, cfg.signal);
    steps.push(outcome);
    await cfg.onStep?.(outcome, s);
  }
  return steps;
}
