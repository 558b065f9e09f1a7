/**
 * AdamW (Loshchilov & Hutter 2019: decay decoupled from the adaptive step) with global gradient-norm clipping and a
 * learning-rate schedule. Written out instead of tf.train.adam because that has no decoupled decay and its moments
 * cannot be saved into a checkpoint by name.
 */
import * as tf from "@tensorflow/tfjs";
import { fusedAdamW, fusedOpsAvailable, fusedSumOfSquares } from "./fused";

export type LrSchedule =
  { kind: "constant"; warmupSteps?: number } | { kind: "cosine"; warmupSteps: number; totalSteps: number; minLrRatio?: number };

export interface AdamWConfig {
  lr: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
  /** Applied to matrices only (norm weights and biases are not decayed, as in nanoGPT / transformers). */
  weightDecay?: number;
  /** Clip the global L2 norm of all gradients to this value; 0 or undefined = no clipping. */
  maxGradNorm?: number;
  schedule?: LrSchedule;
}

/** Learning rate at optimizer step `step` (0-based): linear warmup, then constant or cosine to lr * minLrRatio. */
export function lrAt(cfg: AdamWConfig, step: number): number {
  const s = cfg.schedule ?? { kind: "constant" };
  const warm = s.warmupSteps ?? 0;
  if (step < warm) return (cfg.lr * (step + 1)) / warm;
  if (s.kind === "constant") return cfg.lr;
  const minLr = cfg.lr * (s.minLrRatio ?? 0);
  const progress = Math.min(1, (step - warm) / Math.max(1, s.totalSteps - warm));
  return minLr + 0.5 * (cfg.lr - minLr) * (1 + Math.cos(Math.PI * progress));
}

/** Global L2 norm of a gradient map (syncs one scalar). NaN/Inf in any gradient makes it non-finite. */
export function globalGradNorm(grads: tf.NamedTensorMap): number {
  const native = fusedSumOfSquares(Object.values(grads));
  if (native !== null) return Math.sqrt(native);
  const sq = tf.tidy(() => tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g)))));
  const v = sq.dataSync()[0];
  sq.dispose();
  return Math.sqrt(v);
}

export class AdamW {
  step = 0;
  readonly moments = new Map<string, { m: tf.Variable; v: tf.Variable }>();
  private readonly byName = new Map<string, tf.Variable>();

  constructor(
    vars: tf.Variable[],
    readonly config: AdamWConfig,
  ) {
    for (const v of vars) {
      this.byName.set(v.name, v);
      // tf.variable shares the initial tensor's data, so the zeros are disposed here or they would leak
      const zeros = tf.zerosLike(v);
      this.moments.set(v.name, { m: tf.variable(zeros, false), v: tf.variable(zeros, false) });
      zeros.dispose();
    }
  }

  currentLr(): number {
    return lrAt(this.config, this.step);
  }

  /** Applies one step. `gradNorm` is the already-checked finite global norm (see update/). Returns the lr used. */
  apply(grads: tf.NamedTensorMap, gradNorm: number): number {
    const lr = this.currentLr();
    const b1 = this.config.beta1 ?? 0.9;
    const b2 = this.config.beta2 ?? 0.999;
    const eps = this.config.eps ?? 1e-8;
    const wd = this.config.weightDecay ?? 0;
    const max = this.config.maxGradNorm ?? 0;
    const clip = max > 0 && gradNorm > max ? max / (gradNorm + 1e-6) : 1;
    const t = this.step + 1;
    const bc1 = 1 - Math.pow(b1, t);
    const bc2 = 1 - Math.pow(b2, t);
    const fused = fusedOpsAvailable();
    tf.tidy(() => {
      for (const [name, g0] of Object.entries(grads)) {
        const p = this.byName.get(name);
        const mom = this.moments.get(name);
        if (!p || !mom) throw new Error(`gradient for unknown variable ${name}`);
        if (fused) {
          // one native pass per variable instead of ~13 element-wise ops (same arithmetic, fused.test.ts)
          const [p2, m2, v2] = fusedAdamW(p, mom.m, mom.v, g0, { lr, b1, b2, eps, wd: p.rank >= 2 ? wd : 0, bc1, bc2, clip });
          mom.m.assign(m2);
          mom.v.assign(v2);
          p.assign(p2);
          continue;
        }
        const g = clip === 1 ? g0 : tf.mul(g0, clip);
        const m = tf.add(tf.mul(mom.m, b1), tf.mul(g, 1 - b1));
        const v = tf.add(tf.mul(mom.v, b2), tf.mul(tf.square(g), 1 - b2));
        mom.m.assign(m);
        mom.v.assign(v);
        let upd = tf.div(tf.div(m, bc1), tf.add(tf.sqrt(tf.div(v, bc2)), eps));
        if (wd > 0 && p.rank >= 2) upd = tf.add(upd, tf.mul(p, wd));
        p.assign(tf.sub(p, tf.mul(upd, lr)));
      }
    });
    this.step = t;
    return lr;
  }

  /** Moments keyed "<param>.exp_avg" / ".exp_avg_sq" for optimizer.safetensors (names via `nameOf`). */
  stateTensors(nameOf: (v: tf.Variable) => string): Map<string, tf.Tensor> {
    const out = new Map<string, tf.Tensor>();
    for (const [varName, mom] of this.moments) {
      const p = this.byName.get(varName) as tf.Variable;
      out.set(`${nameOf(p)}.exp_avg`, mom.m);
      out.set(`${nameOf(p)}.exp_avg_sq`, mom.v);
    }
    return out;
  }

  loadStateTensors(step: number, tensors: Map<string, tf.Tensor>, nameOf: (v: tf.Variable) => string): void {
    this.step = step;
    for (const [varName, mom] of this.moments) {
      const key = nameOf(this.byName.get(varName) as tf.Variable);
      const m = tensors.get(`${key}.exp_avg`);
      const v = tensors.get(`${key}.exp_avg_sq`);
      if (!m || !v) throw new Error(`optimizer state is missing moments for ${key}`);
      mom.m.assign(m);
      mom.v.assign(v);
    }
  }

  dispose(): void {
    for (const mom of this.moments.values()) {
      mom.m.dispose();
      mom.v.dispose();
    }
  }
}
