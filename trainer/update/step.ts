/**
 * One optimizer step over micro-batches with gradient accumulation, refusing to apply non-finite gradients.
 * A NaN/Inf in the loss or the global gradient norm skips the step (weights and moments untouched); after
 * `maxConsecutiveBadSteps` skips in a row the run fails with NonFiniteUpdateError, since by then it is diverging
 * rather than hitting one unlucky batch.
 */
import * as tf from "@tensorflow/tfjs";
import type { DecoderLM } from "../policy/model";
import { globalGradNorm, type AdamW } from "../policy/optimizer";

export class NonFiniteUpdateError extends Error {
  readonly code = "NON_FINITE_UPDATE";
  constructor(count: number, detail: string) {
    super(
      `${count} consecutive updates had non-finite ${detail}; training is diverging. Lower grpo.learningRate, ` +
        `or check the rewards and advantages for NaN (gradients are already clipped to norm 1).`,
    );
    this.name = "NonFiniteUpdateError";
  }
}

export interface StepOutcome {
  applied: boolean;
  /** Why the step was skipped (non-finite loss / gradients), when it was. */
  skippedReason?: string;
  loss: number;
  gradNorm: number;
  lr: number;
  /** Scalar metrics returned by the loss function, weighted over micro-batches. */
  metrics: Record<string, number>;
}

/** Loss of one micro-batch: the scalar to differentiate and metrics (kept scalars; the runner disposes them). */
export type MicroLoss = () => { loss: tf.Scalar; metrics: Record<string, tf.Scalar> };

/** Lets timers and I/O run (heartbeats, cancel requests), then throws the abort reason if `signal` fired. */
export async function yieldToEventLoop(signal?: AbortSignal): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  signal?.throwIfAborted();
}

export class GuardedStepper {
  private badInARow = 0;

  constructor(
    readonly model: DecoderLM,
    readonly optimizer: AdamW,
    readonly maxConsecutiveBadSteps = 3,
  ) {}

  /**
   * Runs each micro-batch loss with weight w (weights should sum to 1), accumulates gradients, applies once.
   * Metrics are averaged with `metricWeight` when given (micro-batches left out still count in the gradient's w).
   * Between micro-batches it yields to the event loop (TF.js blocks it while computing, and the worker's lease
   * heartbeats and cancel requests need it) and stops if `signal` was aborted, before any weight changes.
   */
  async step(micro: { weight: number; loss: MicroLoss; metricWeight?: number }[], signal?: AbortSignal): Promise<StepOutcome> {
    const vars = this.model.trainableVariables();
    let acc: tf.NamedTensorMap | null = null;
    let lossSum = 0;
    const metrics: Record<string, number> = {};
    try {
      for (const { weight, loss, metricWeight } of micro) {
        await yieldToEventLoop(signal);
        let kept: Record<string, tf.Scalar> = {};
        const { value, grads } = tf.variableGrads(() => {
          const r = loss();
          kept = r.metrics;
          for (const m of Object.values(kept)) tf.keep(m);
          return tf.mul(r.loss, weight) as tf.Scalar;
        }, vars);
        lossSum += value.dataSync()[0];
        value.dispose();
        for (const [k, t] of Object.entries(kept)) {
          metrics[k] = (metrics[k] ?? 0) + (metricWeight ?? weight) * t.dataSync()[0];
          t.dispose();
        }
        if (!acc) acc = grads;
        else {
          const prev: tf.NamedTensorMap = acc;
          acc = {};
          for (const name of Object.keys(grads)) acc[name] = tf.add(prev[name], grads[name]);
          tf.dispose([...Object.values(prev), ...Object.values(grads)]);
        }
      }
      await yieldToEventLoop(signal);
      if (!acc) throw new Error("step() needs at least one micro-batch");
      const gradNorm = globalGradNorm(acc);
      let skippedReason: string | undefined;
      if (!Number.isFinite(lossSum)) skippedReason = "loss";
      else if (!Number.isFinite(gradNorm)) skippedReason = "gradients";
      let lr = this.optimizer.currentLr();
      if (skippedReason) {
        this.badInARow++;
        if (this.badInARow >= this.maxConsecutiveBadSteps) throw new NonFiniteUpdateError(this.badInARow, skippedReason);
        return { applied: false, skippedReason, loss: lossSum, gradNorm, lr, metrics };
      }
      this.badInARow = 0;
      lr = this.optimizer.apply(acc, gradNorm);
      return { applied: true, loss: lossSum, gradNorm, lr, metrics };
    } finally {
      // Whatever happens (an aborted or failing micro-batch, a throwing optimizer), the accumulated gradients are
      // freed: a long-lived worker must not leak tensors.
      if (acc) tf.dispose(Object.values(acc));
    }
  }
}
