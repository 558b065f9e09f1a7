/**
 * AdamW (Loshchilov & Hutter 2019: decay decoupled from the adaptive step) with global gradient-norm clipping and a
 * learning-rate schedule. Written out instead of tf.train.adam because that has no decoupled decay and its moments
 * cannot be saved into a checkpoint by name.
 */
import * as tf from "@tensorflow/tfjs";
import { ADAMW8_BLOCK } from "../backend/native/fused-kernels";
import {
  decodeMoments8,
  encodeMoments8,
  fusedAdamW,
  fusedAdamWInPlace,
  fusedAdamW8,
  fusedAdamW8Available,
  fusedOpsAvailable,
  fusedSumOfSquares,
} from "./fused";

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
  /**
   * 8: keep the two moments in 8 bits each, blockwise (native/blas/src/fused.h): 2 bytes per trainable parameter
   * instead of 8. Needs the native kernels; without them (the GPU host, ROLLOUT_LAB_NATIVE=0) the moments stay fp32
   * and `stateBits` says so.
   */
  stateBits?: 32 | 8;
}

interface Moments8Vars {
  mq: tf.Variable;
  ms: tf.Variable;
  vq: tf.Variable;
  vs: tf.Variable;
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
  /** fp32 moments (stateBits 32). */
  readonly moments = new Map<string, { m: tf.Variable; v: tf.Variable }>();
  /** 8-bit moments (stateBits 8): codes packed four to an int32, one scale per 256 values. */
  readonly moments8 = new Map<string, Moments8Vars>();
  /** The moments' precision in use (8 only where the native kernels are). */
  readonly stateBits: 32 | 8;
  private readonly byName = new Map<string, tf.Variable>();

  constructor(
    vars: tf.Variable[],
    readonly config: AdamWConfig,
  ) {
    this.stateBits = config.stateBits === 8 && fusedAdamW8Available() ? 8 : 32;
    // tf.variable shares the initial tensor's data, so the zeros are disposed here or they would leak
    const variable = (t: tf.Tensor) => {
      const out = tf.variable(t, false);
      t.dispose();
      return out;
    };
    for (const v of vars) {
      this.byName.set(v.name, v);
      if (this.stateBits === 8) {
        const packed = Math.ceil(v.size / 4);
        const blocks = Math.ceil(v.size / ADAMW8_BLOCK);
        this.moments8.set(v.name, {
          mq: variable(tf.zeros([packed], "int32")),
          ms: variable(tf.zeros([blocks])),
          vq: variable(tf.zeros([packed], "int32")),
          vs: variable(tf.zeros([blocks])),
        });
        continue;
      }
      this.moments.set(v.name, { m: variable(tf.zerosLike(v)), v: variable(tf.zerosLike(v)) });
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
        const m8 = this.moments8.get(name);
        if (p && m8) {
          if (!fusedAdamW8Available()) throw new Error("8-bit optimizer state needs the native kernels, which are switched off now");
          const [p2, next] = fusedAdamW8(p, g0, m8, { lr, b1, b2, eps, wd: p.rank >= 2 ? wd : 0, bc1, bc2, clip });
          m8.mq.assign(next.mq);
          m8.ms.assign(next.ms);
          m8.vq.assign(next.vq);
          m8.vs.assign(next.vs);
          p.assign(p2);
          continue;
        }
        const mom = this.moments.get(name);
        if (!p || !mom) throw new Error(`gradient for unknown variable ${name}`);
        if (fused) {
          // one native pass per variable instead of ~13 element-wise ops (same arithmetic, fused.test.ts), in
          // place unless a buffer is shared (then into new tensors, which the variables take over)
          const hp = { lr, b1, b2, eps, wd: p.rank >= 2 ? wd : 0, bc1, bc2, clip };
          if (fusedAdamWInPlace(p, mom.m, mom.v, g0, hp)) continue;
          const [p2, m2, v2] = fusedAdamW(p, mom.m, mom.v, g0, hp);
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

  /**
   * Calls `use` with each moment as an fp32 tensor keyed "<param>.exp_avg" / ".exp_avg_sq" (names via `nameOf`), for
   * optimizer.safetensors. 8-bit moments are decoded one variable at a time and freed after `use` returns.
   */
  forEachStateTensor(nameOf: (v: tf.Variable) => string, use: (key: string, t: tf.Tensor) => void): void {
    for (const [varName, mom] of this.moments) {
      const p = this.byName.get(varName) as tf.Variable;
      use(`${nameOf(p)}.exp_avg`, mom.m);
      use(`${nameOf(p)}.exp_avg_sq`, mom.v);
    }
    for (const [varName, mom] of this.moments8) {
      const p = this.byName.get(varName) as tf.Variable;
      const [m, v] = decodeMoments8(mom, p.shape);
      try {
        use(`${nameOf(p)}.exp_avg`, m);
        use(`${nameOf(p)}.exp_avg_sq`, v);
      } finally {
        tf.dispose([m, v]);
      }
    }
  }

  loadStateTensors(step: number, tensors: Map<string, tf.Tensor>, nameOf: (v: tf.Variable) => string): void {
    this.step = step;
    const read = (varName: string) => {
      const key = nameOf(this.byName.get(varName) as tf.Variable);
      const m = tensors.get(`${key}.exp_avg`);
      const v = tensors.get(`${key}.exp_avg_sq`);
      if (!m || !v) throw new Error(`optimizer state is missing moments for ${key}`);
      return { m, v };
    };
    for (const [varName, mom] of this.moments) {
      const { m, v } = read(varName);
      mom.m.assign(m);
      mom.v.assign(v);
    }
    for (const [varName, mom] of this.moments8) {
      const { m, v } = read(varName);
      const enc = encodeMoments8(m, v);
      mom.mq.assign(enc.mq);
      mom.ms.assign(enc.ms);
      mom.vq.assign(enc.vq);
      mom.vs.assign(enc.vs);
      tf.dispose([enc.mq, enc.ms, enc.vq, enc.vs]);
    }
  }

  dispose(): void {
    for (const mom of this.moments.values()) tf.dispose([mom.m, mom.v]);
    for (const mom of this.moments8.values()) tf.dispose([mom.mq, mom.ms, mom.vq, mom.vs]);
  }
}
