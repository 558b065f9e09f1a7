/**
 * LoRA (Hu et al. 2021): y = x W + (alpha / r) * x A B with W frozen, A [in, r] random, B [r, out] zero so training
 * starts exactly at the base model. Names follow PEFT's saved adapters
 * (`base_model.model.<module>.lora_A.weight` [r, in], `lora_B.weight` [out, r]); like the base projections, A and B
 * are held transposed in TF.js (see params.ts) and transposed back in the checkpoint.
 */
import * as tf from "@tensorflow/tfjs";
import { mm } from "./ops";
import { LORA_TARGETS, type LoraTarget } from "./params";
import { Rng } from "./rng";
import type { DecoderLM } from "./model";

export interface LoraConfig {
  rank: number;
  alpha: number;
  targets: LoraTarget[];
}

export class LoraConfigError extends Error {
  readonly code = "LORA_CONFIG_INVALID";
}

interface Adapter {
  a: tf.Variable;
  b: tf.Variable;
}

export class LoraAdapters {
  readonly scale: number;
  /** module path (e.g. model.layers.0.self_attn.q_proj) -> adapter */
  readonly adapters = new Map<string, Adapter>();

  constructor(
    model: DecoderLM,
    readonly config: LoraConfig,
    seed: number,
    prefix: string,
    /** Adapters to copy, frozen, instead of a fresh initialisation (frozenSnapshot). */
    from?: LoraAdapters,
  ) {
    if (!Number.isInteger(config.rank) || config.rank < 1)
      throw new LoraConfigError(`LoRA rank must be a positive integer, got ${config.rank}.`);
    for (const t of config.targets) {
      if (!(LORA_TARGETS as readonly string[]).includes(t)) {
        throw new LoraConfigError(`Unknown LoRA target "${t}". Valid targets: ${LORA_TARGETS.join(", ")}.`);
      }
    }
    this.scale = config.alpha / config.rank;
    const rng = new Rng(seed);
    for (const spec of model.specs) {
      const m = /^(model\.layers\.\d+\.(?:self_attn|mlp)\.(\w+))\.weight$/.exec(spec.name);
      if (!m || !(config.targets as string[]).includes(m[2])) continue;
      const [inDim, outDim] = spec.shape;
      const source = from?.adapters.get(m[1]);
      if (source) {
        this.adapters.set(m[1], {
          a: tf.variable(source.a, false, `${prefix}/${m[1]}.lora_A`),
          b: tf.variable(source.b, false, `${prefix}/${m[1]}.lora_B`),
        });
        continue;
      }
      const bound = 1 / Math.sqrt(inDim); // PEFT: kaiming_uniform(a=sqrt(5)) on A
      // tf.variable shares its initial tensor's data: the initial tensors are disposed here or they would leak
      const a0 = tf.randomUniform([inDim, config.rank], -bound, bound, "float32", rng.seed());
      const b0 = tf.zeros([config.rank, outDim]);
      this.adapters.set(m[1], {
        a: tf.variable(a0, true, `${prefix}/${m[1]}.lora_A`),
        b: tf.variable(b0, true, `${prefix}/${m[1]}.lora_B`),
      });
      tf.dispose([a0, b0]);
    }
  }

  apply(x: tf.Tensor2D, y: tf.Tensor2D, module: string): tf.Tensor2D {
    const ad = this.adapters.get(module);
    if (!ad) return y;
    // scaled at rank width ([rows, r]), not output width: the same product, and the multiply (and its gradient)
    // touches r values per row instead of hundreds
    return tf.add(y, mm(tf.mul(mm(x, ad.a as tf.Tensor2D), this.scale), ad.b as tf.Tensor2D));
  }

  /** Frozen copies of these adapters on the same model (a LoRA run's KL reference; see DecoderLM.frozenCopy). */
  frozenSnapshot(model: DecoderLM, prefix: string): LoraAdapters {
    return new LoraAdapters(model, this.config, 0, prefix, this);
  }

  /** Takes the other adapters' values (same targets and rank). */
  copyFrom(other: LoraAdapters): void {
    for (const [mod, ad] of this.adapters) {
      const src = other.adapters.get(mod);
      if (!src) throw new Error(`LoRA adapters differ: ${mod} is missing`);
      ad.a.assign(src.a);
      ad.b.assign(src.b);
    }
  }

  variables(): tf.Variable[] {
    return [...this.adapters.values()].flatMap((ad) => [ad.a, ad.b]);
  }

  /** PEFT state_dict names -> variables (TF.js layout; transposed relative to PEFT files). */
  namedVariables(): Map<string, tf.Variable> {
    const out = new Map<string, tf.Variable>();
    for (const [mod, ad] of this.adapters) {
      out.set(`base_model.model.${mod}.lora_A.weight`, ad.a);
      out.set(`base_model.model.${mod}.lora_B.weight`, ad.b);
    }
    return out;
  }

  dispose(): void {
    for (const v of this.variables()) v.dispose();
  }
}
