/**
 * TF.js kernels of our own (not replacements of stock ones) for the wasm backend, each one fused decoder piece run
 * by the native addon on the wasm heap in place: RMSNorm, rotary positions, SwiGLU, causal grouped-query attention,
 * per-token log-prob + entropy, and their gradients, plus AdamW. trainer/policy/fused.ts calls them through
 * `tf.engine().runKernel` when they are registered and falls back to compositions of stock ops otherwise, so the
 * names below are the whole contract between the two folders.
 */
import * as tf from "@tensorflow/tfjs";
import type { BlasAddon } from "./addon";

export const FUSED = {
  rmsNorm: "RolloutLabRmsNorm",
  rmsNormGrad: "RolloutLabRmsNormGrad",
  rope: "RolloutLabRope",
  swiGlu: "RolloutLabSwiGlu",
  swiGluGrad: "RolloutLabSwiGluGrad",
  attention: "RolloutLabAttention",
  attentionGrad: "RolloutLabAttentionGrad",
  tokenLogProb: "RolloutLabTokenLogProb",
  tokenLogProbGrad: "RolloutLabTokenLogProbGrad",
  adamW: "RolloutLabAdamW",
  decodeLayer: "RolloutLabDecodeLayer",
} as const;

type DataId = object;
interface WasmBackend {
  dataIdMap: { get(id: DataId): { memoryOffset: number } | undefined };
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  disposeData(id: DataId): void;
  wasm: { HEAPF32: Float32Array };
}
type Params = Parameters<tf.KernelFunc>[0];
type Inputs = Record<string, tf.TensorInfo | undefined>;

export interface DecodeLayerAttrs {
  heads: number;
  kvHeads: number;
  headDim: number;
  /** Tokens already in the cache: the new token's position. */
  past: number;
  eps: number;
}

/** Inputs of the decode-layer kernel, in the order the addon takes them (bq/bk/bv and keyMask optional). */
const DECODE_INPUTS = ["h", "ln1", "wq", "wk", "wv", "bq", "bk", "bv", "wo", "ln2", "wg", "wu", "wd", "cacheK", "cacheV", "keyMask", "cos", "sin"];

export interface AttentionAttrs {
  B: number;
  T: number;
  Tk: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  past: number;
  scale: number;
}

/** An input of a fused kernel and the element count and dtype its attributes imply. */
type InputSpec = [name: string, size: number, dtype?: "float32" | "int32"];

const sizeOf = (shape: number[]) => shape.reduce((p, d) => p * d, 1);

/**
 * Runs `body` with the inputs' heap offsets and freshly allocated float32 outputs. Every input is checked against
 * its expected size and dtype first: the addon only sees the whole heap, so a tensor smaller than the attributes
 * claim would otherwise be read past its end (or written past, for the decode cache). Offsets are read, and the heap
 * view taken, only after every output is allocated: an allocation may grow wasm memory and detach older views.
 */
function onHeap(
  params: Params,
  kernel: string,
  specs: InputSpec[],
  outShapes: number[][],
  body: (heap: Float32Array, at: (t: tf.TensorInfo) => number, ins: tf.TensorInfo[], outs: tf.TensorInfo[]) => boolean | void,
  failure?: string,
): tf.TensorInfo | tf.TensorInfo[] {
  const backend = params.backend as WasmBackend;
  const ins = specs.map(([name, size, dtype = "float32"]) => {
    const t = (params.inputs as Inputs)[name];
    if (!t) throw new Error(`${kernel}: input ${name} is missing`);
    if (t.dtype !== dtype || sizeOf(t.shape) !== size) {
      throw new Error(`${kernel}: input ${name} is ${t.dtype} [${t.shape}], expected ${dtype} with ${size} elements`);
    }
    return t;
  });
  const outs = outShapes.map((s) => backend.makeOutput(s, "float32"));
  const at = (t: tf.TensorInfo) => {
    const entry = backend.dataIdMap.get(t.dataId);
    if (!entry) throw new Error(`${kernel}: tensor data is not on the wasm heap`);
    return entry.memoryOffset / 4;
  };
  let ok: boolean | void;
  try {
    ok = body(backend.wasm.HEAPF32, at, ins, outs);
  } catch (e) {
    for (const o of outs) backend.disposeData(o.dataId);
    throw e;
  }
  if (ok === false) {
    for (const o of outs) backend.disposeData(o.dataId);
    throw new Error(`${kernel}: ${failure ?? "rejected its input"}`);
  }
  return outs.length === 1 ? outs[0] : outs;
}

const attrsOf = <T>(params: Params) => params.attrs as unknown as T;
const shapeOf = (params: Params, name: string) => {
  const t = (params.inputs as Inputs)[name];
  if (!t) throw new Error(`fused kernel input ${name} is missing`);
  return t.shape;
};

function makeKernels(addon: BlasAddon): Record<string, tf.KernelFunc> {
  return {
    [FUSED.rmsNorm]: (p) => {
      const [R, D] = shapeOf(p, "x");
      const { eps } = attrsOf<{ eps: number }>(p);
      return onHeap(p, FUSED.rmsNorm, [["x", R * D], ["w", D]], [[R, D]], (h, at, [x, w], [y]) =>
        addon.rmsnormFwd(R, D, eps, h, at(x), h, at(w), h, at(y)),
      );
    },
    [FUSED.rmsNormGrad]: (p) => {
      const [R, D] = shapeOf(p, "x");
      const { eps } = attrsOf<{ eps: number }>(p);
      return onHeap(p, FUSED.rmsNormGrad, [["dy", R * D], ["x", R * D], ["w", D]], [[R, D], [D]], (h, at, [dy, x, w], [dx, dw]) =>
        addon.rmsnormBwd(R, D, eps, h, at(dy), h, at(x), h, at(w), h, at(dx), h, at(dw)),
      );
    },
    [FUSED.rope]: (p) => {
      const [R, width] = shapeOf(p, "x");
      const [maxPos, hd] = shapeOf(p, "cos");
      const { heads, sign } = attrsOf<{ heads: number; sign: number }>(p);
      if (width !== heads * hd) throw new Error(`${FUSED.rope}: row width ${width} is not ${heads} heads x ${hd}`);
      return onHeap(
        p, FUSED.rope, [["x", R * width], ["pos", R, "int32"], ["cos", maxPos * hd], ["sin", maxPos * hd]], [[R, width]],
        (h, at, [xi, pos, c, s], [y]) => addon.ropeApply(R, heads, hd, maxPos, sign, h, at(xi), h, at(pos), h, at(c), h, at(s), h, at(y)),
        `rotary position outside the table of ${maxPos} positions`,
      );
    },
    [FUSED.swiGlu]: (p) => {
      const shape = shapeOf(p, "gate");
      const n = sizeOf(shape);
      return onHeap(p, FUSED.swiGlu, [["gate", n], ["up", n]], [shape], (h, at, [g, u], [y]) => addon.swigluFwd(n, h, at(g), h, at(u), h, at(y)));
    },
    [FUSED.swiGluGrad]: (p) => {
      const shape = shapeOf(p, "gate");
      const n = sizeOf(shape);
      return onHeap(p, FUSED.swiGluGrad, [["dy", n], ["gate", n], ["up", n]], [shape, shape], (h, at, [dy, g, u], [dg, du]) =>
        addon.swigluBwd(n, h, at(dy), h, at(g), h, at(u), h, at(dg), h, at(du)),
      );
    },
    [FUSED.attention]: (p) => {
      const a = attrsOf<AttentionAttrs>(p);
      const nq = a.B * a.T * a.heads * a.headDim;
      const nk = a.B * a.Tk * a.kvHeads * a.headDim;
      const specs: InputSpec[] = [["q", nq], ["k", nk], ["v", nk]];
      if ((p.inputs as Inputs).keyMask) specs.push(["keyMask", a.B * a.Tk]);
      return onHeap(p, FUSED.attention, specs, [[a.B * a.T, a.heads * a.headDim], [a.B * a.heads * a.T * a.Tk]], (h, at, ins, [out, probs]) => {
        const [q, k, v, mask] = ins;
        addon.attnFwd(
          a.B, a.T, a.Tk, a.heads, a.kvHeads, a.headDim, a.past, a.scale,
          h, at(q), h, at(k), h, at(v), mask ? h : null, mask ? at(mask) : 0, h, at(out), h, at(probs),
        );
      });
    },
    [FUSED.attentionGrad]: (p) => {
      const a = attrsOf<AttentionAttrs>(p);
      const nq = a.B * a.T * a.heads * a.headDim;
      const nk = a.B * a.Tk * a.kvHeads * a.headDim;
      const kShape = shapeOf(p, "k");
      const specs: InputSpec[] = [["dy", nq], ["q", nq], ["k", nk], ["v", nk], ["probs", a.B * a.heads * a.T * a.Tk]];
      return onHeap(p, FUSED.attentionGrad, specs, [[a.B * a.T, a.heads * a.headDim], kShape, kShape], (h, at, ins, outs) => {
        const [dy, q, k, v, probs] = ins;
        const [dq, dk, dv] = outs;
        addon.attnBwd(
          a.B, a.T, a.Tk, a.heads, a.kvHeads, a.headDim, a.scale,
          h, at(dy), h, at(q), h, at(k), h, at(v), h, at(probs), h, at(dq), h, at(dk), h, at(dv),
        );
      });
    },
    [FUSED.tokenLogProb]: (p) => {
      const [N, V] = shapeOf(p, "logits");
      return onHeap(
        p, FUSED.tokenLogProb, [["logits", N * V], ["target", N, "int32"]], [[2, N]],
        (h, at, [z, t], [out]) => addon.logprobFwd(N, V, h, at(z), h, at(t), h, at(out)),
        `token id outside the vocabulary of ${V}`,
      );
    },
    [FUSED.tokenLogProbGrad]: (p) => {
      const [N, V] = shapeOf(p, "logits");
      return onHeap(p, FUSED.tokenLogProbGrad, [["logits", N * V], ["target", N, "int32"], ["dy", 2 * N]], [[N, V]], (h, at, [z, t, dy], [dz]) =>
        addon.logprobBwd(N, V, h, at(z), h, at(t), h, at(dy), h, at(dz)),
      );
    },
    [FUSED.adamW]: (p) => {
      const shape = shapeOf(p, "p");
      const n = sizeOf(shape);
      const a = attrsOf<{ lr: number; b1: number; b2: number; eps: number; wd: number; bc1: number; bc2: number; clip: number }>(p);
      return onHeap(p, FUSED.adamW, [["p", n], ["m", n], ["v", n], ["g", n]], [shape, shape, shape], (h, at, [pi, m, v, g], [p2, m2, v2]) =>
        addon.adamw(n, a.lr, a.b1, a.b2, a.eps, a.wd, a.bc1, a.bc2, a.clip, h, at(pi), h, at(m), h, at(v), h, at(g), h, at(p2), h, at(m2), h, at(v2)),
      );
    },
    // One decoder layer for one new token per row; writes row `past` of the cacheK / cacheV inputs in place, which
    // only trainer/policy/native-decoder.ts passes (buffers it allocated and nothing else reads).
    [FUSED.decodeLayer]: (p) => {
      const inputs = p.inputs as Inputs;
      const a = attrsOf<DecodeLayerAttrs>(p);
      const [B, D] = shapeOf(p, "h");
      const [, cap] = shapeOf(p, "cacheK");
      const [maxPos] = shapeOf(p, "cos");
      const [, mlp] = shapeOf(p, "wg");
      const qw = a.heads * a.headDim;
      const kw = a.kvHeads * a.headDim;
      const expected: Record<string, number> = {
        h: B * D, ln1: D, wq: D * qw, wk: D * kw, wv: D * kw, bq: qw, bk: kw, bv: kw, wo: qw * D, ln2: D,
        wg: D * mlp, wu: D * mlp, wd: mlp * D, cacheK: B * cap * kw, cacheV: B * cap * kw, keyMask: B * cap,
        cos: maxPos * a.headDim, sin: maxPos * a.headDim,
      };
      const present = DECODE_INPUTS.filter((n) => inputs[n] !== undefined);
      return onHeap(
        p, FUSED.decodeLayer, present.map((n): InputSpec => [n, expected[n]]), [[B, D]],
        (h, at, ins, [out]) => {
          const args = DECODE_INPUTS.flatMap((n): [Float32Array | null, number] => {
            const i = present.indexOf(n);
            return i < 0 ? [null, 0] : [h, at(ins[i])];
          });
          const bias = inputs.bq !== undefined ? 1 : 0;
          return addon.decodeLayer(B, D, a.heads, a.kvHeads, a.headDim, mlp, a.past, cap, maxPos, a.eps, 1 / Math.sqrt(a.headDim), bias, ...args, h, at(out));
        },
        `decode position ${a.past} is outside the cache (${cap}) or rotary table (${maxPos})`,
      );
    },
  };
}

/** Whether this addon build has the fused kernels (an addon built before they existed does not). */
export function hasFusedKernels(addon: BlasAddon): boolean {
  return typeof addon.attnFwd === "function" && typeof addon.decodeLayer === "function";
}

/** Registers the fused kernels on the wasm backend; returns their names. */
export function registerFusedKernels(addon: BlasAddon, backendName: string): string[] {
  if (backendName !== "wasm" || !hasFusedKernels(addon)) return [];
  const kernels = makeKernels(addon);
  for (const [kernelName, kernelFunc] of Object.entries(kernels)) {
    if (tf.getKernel(kernelName, backendName)) tf.unregisterKernel(kernelName, backendName);
    tf.registerKernel({ kernelName, backendName, kernelFunc });
  }
  return Object.keys(kernels);
}

export function unregisterFusedKernels(backendName: string): void {
  for (const name of Object.values(FUSED)) if (tf.getKernel(name, backendName)) tf.unregisterKernel(name, backendName);
}

/**
 * Sum of squares of float32 tensors on the wasm heap (the global gradient norm), one native pass each instead of
 * square + sum + addN; null when the tensors are not on a wasm backend with the native addon.
 */
export function nativeSumSquares(addon: BlasAddon | null, tensors: tf.Tensor[]): number | null {
  if (!addon || tf.getBackend() !== "wasm" || !hasFusedKernels(addon)) return null;
  const backend = tf.backend() as unknown as WasmBackend;
  const heap = backend.wasm.HEAPF32;
  let total = 0;
  for (const t of tensors) {
    const entry = backend.dataIdMap.get(t.dataId);
    if (!entry || t.dtype !== "float32") return null;
    total += addon.sumSquares(t.size, heap, entry.memoryOffset / 4);
  }
  return total;
}
