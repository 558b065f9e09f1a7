/**
 * TF.js kernels of our own (not replacements of stock ones) for the wasm and cpu backends, each one fused decoder
 * piece run by the native addon on the tensors' memory in place (the wasm heap, or the cpu backend's own typed
 * arrays — see kernel-memory.ts): RMSNorm, rotary positions, SwiGLU, causal grouped-query attention,
 * per-token log-prob + entropy, and their gradients, plus AdamW. trainer/policy/fused.ts calls them through
 * `tf.engine().runKernel` when they are registered and falls back to compositions of stock ops otherwise, so the
 * names below are the whole contract between the two folders.
 */
import * as tf from "@tensorflow/tfjs";
import type { BlasAddon } from "./addon";
import { weightCopyOf, weightsWrittenInPlace } from "./bf16-weight-cache";
import { kernelMemory, type Buffer4, type KernelMemory } from "./kernel-memory";

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
  adamW8: "RolloutLabAdamW8",
  adamW8Decode: "RolloutLabAdamW8Decode",
  adamW8Encode: "RolloutLabAdamW8Encode",
  decodeLayer: "RolloutLabDecodeLayer",
  bf16Encode: "RolloutLabBf16Encode",
  bf16Decode: "RolloutLabBf16Decode",
  bf16MatMul: "RolloutLabBf16MatMul",
  bf16Gather: "RolloutLabBf16Gather",
} as const;

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
const DECODE_INPUTS = [
  "h",
  "ln1",
  "wq",
  "wk",
  "wv",
  "bq",
  "bk",
  "bv",
  "wo",
  "ln2",
  "wg",
  "wu",
  "wd",
  "cacheK",
  "cacheV",
  "keyMask",
  "cos",
  "sin",
  "positions",
];

/** The logical shape of a packed bfloat16 matrix. */
export interface Bf16Attrs {
  rows: number;
  cols: number;
}

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
 * Runs `body` with the inputs and freshly allocated float32 outputs; `at(t)` is the (array, offset) pair the addon
 * takes for a tensor. Every input is checked against its expected size and dtype first: on wasm the addon only
 * sees the whole heap, so a tensor smaller than the attributes claim would otherwise be read past its end (or
 * written past, for the decode cache). Buffers are looked up only inside `body`, after every output is allocated:
 * a wasm allocation may grow the heap and detach older views.
 */
function withMemory(
  params: Params,
  kernel: string,
  specs: InputSpec[],
  /** A shape (float32), or a shape and dtype. */
  outShapes: (number[] | [number[], "int32"])[],
  body: (at: (t: tf.TensorInfo) => [Buffer4, number], ins: tf.TensorInfo[], outs: tf.TensorInfo[]) => boolean | void,
  failure?: string,
): tf.TensorInfo | tf.TensorInfo[] {
  const mem = memoryOf(params);
  const ins = specs.map(([name, size, dtype = "float32"]) => {
    const t = (params.inputs as Inputs)[name];
    if (!t) throw new Error(`${kernel}: input ${name} is missing`);
    if (t.dtype !== dtype || sizeOf(t.shape) !== size) {
      throw new Error(`${kernel}: input ${name} is ${t.dtype} [${t.shape}], expected ${dtype} with ${size} elements`);
    }
    return t;
  });
  const outs = outShapes.map((s) => (Array.isArray(s[0]) ? mem.output(s[0], "int32") : mem.output(s as number[], "float32")));
  let ok: boolean | void;
  try {
    ok = body((t) => mem.at(t), ins, outs);
  } catch (e) {
    for (const o of outs) mem.dispose(o);
    throw e;
  }
  if (ok === false) {
    for (const o of outs) mem.dispose(o);
    throw new Error(`${kernel}: ${failure ?? "rejected its input"}`);
  }
  return outs.length === 1 ? outs[0] : outs;
}

/** The kernel memory of the backend a kernel runs on (registered for wasm and cpu only). */
const memoryOf = (params: Params): KernelMemory => {
  const mem = kernelMemory(tf.getBackend(), params.backend);
  if (!mem) throw new Error(`fused kernels do not run on the ${tf.getBackend()} backend`);
  return mem;
};

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
      return withMemory(
        p,
        FUSED.rmsNorm,
        [
          ["x", R * D],
          ["w", D],
        ],
        [[R, D]],
        (at, [x, w], [y]) => addon.rmsnormFwd(R, D, eps, ...at(x), ...at(w), ...at(y)),
      );
    },
    [FUSED.rmsNormGrad]: (p) => {
      const [R, D] = shapeOf(p, "x");
      const { eps } = attrsOf<{ eps: number }>(p);
      return withMemory(
        p,
        FUSED.rmsNormGrad,
        [
          ["dy", R * D],
          ["x", R * D],
          ["w", D],
        ],
        [[R, D], [D]],
        (at, [dy, x, w], [dx, dw]) => addon.rmsnormBwd(R, D, eps, ...at(dy), ...at(x), ...at(w), ...at(dx), ...at(dw)),
      );
    },
    [FUSED.rope]: (p) => {
      const [R, width] = shapeOf(p, "x");
      const [maxPos, hd] = shapeOf(p, "cos");
      const { heads, sign } = attrsOf<{ heads: number; sign: number }>(p);
      if (width !== heads * hd) throw new Error(`${FUSED.rope}: row width ${width} is not ${heads} heads x ${hd}`);
      return withMemory(
        p,
        FUSED.rope,
        [
          ["x", R * width],
          ["pos", R, "int32"],
          ["cos", maxPos * hd],
          ["sin", maxPos * hd],
        ],
        [[R, width]],
        (at, [xi, pos, c, s], [y]) => addon.ropeApply(R, heads, hd, maxPos, sign, ...at(xi), ...at(pos), ...at(c), ...at(s), ...at(y)),
        `rotary position outside the table of ${maxPos} positions`,
      );
    },
    [FUSED.swiGlu]: (p) => {
      const shape = shapeOf(p, "gate");
      const n = sizeOf(shape);
      return withMemory(
        p,
        FUSED.swiGlu,
        [
          ["gate", n],
          ["up", n],
        ],
        [shape],
        (at, [g, u], [y]) => addon.swigluFwd(n, ...at(g), ...at(u), ...at(y)),
      );
    },
    [FUSED.swiGluGrad]: (p) => {
      const shape = shapeOf(p, "gate");
      const n = sizeOf(shape);
      return withMemory(
        p,
        FUSED.swiGluGrad,
        [
          ["dy", n],
          ["gate", n],
          ["up", n],
        ],
        [shape, shape],
        (at, [dy, g, u], [dg, du]) => addon.swigluBwd(n, ...at(dy), ...at(g), ...at(u), ...at(dg), ...at(du)),
      );
    },
    [FUSED.attention]: (p) => {
      const a = attrsOf<AttentionAttrs>(p);
      const nq = a.B * a.T * a.heads * a.headDim;
      const nk = a.B * a.Tk * a.kvHeads * a.headDim;
      const specs: InputSpec[] = [
        ["q", nq],
        ["k", nk],
        ["v", nk],
      ];
      if ((p.inputs as Inputs).keyMask) specs.push(["keyMask", a.B * a.Tk]);
      return withMemory(
        p,
        FUSED.attention,
        specs,
        [[a.B * a.T, a.heads * a.headDim], [a.B * a.heads * a.T * a.Tk]],
        (at, ins, [out, probs]) => {
          const [q, k, v, mask] = ins;
          addon.attnFwd(
            a.B,
            a.T,
            a.Tk,
            a.heads,
            a.kvHeads,
            a.headDim,
            a.past,
            a.scale,
            ...at(q),
            ...at(k),
            ...at(v),
            ...(mask ? at(mask) : [null, 0]),
            ...at(out),
            ...at(probs),
          );
        },
      );
    },
    [FUSED.attentionGrad]: (p) => {
      const a = attrsOf<AttentionAttrs>(p);
      const nq = a.B * a.T * a.heads * a.headDim;
      const nk = a.B * a.Tk * a.kvHeads * a.headDim;
      const kShape = shapeOf(p, "k");
      const specs: InputSpec[] = [
        ["dy", nq],
        ["q", nq],
        ["k", nk],
        ["v", nk],
        ["probs", a.B * a.heads * a.T * a.Tk],
      ];
      return withMemory(p, FUSED.attentionGrad, specs, [[a.B * a.T, a.heads * a.headDim], kShape, kShape], (at, ins, outs) => {
        const [dy, q, k, v, probs] = ins;
        const [dq, dk, dv] = outs;
        addon.attnBwd(
          a.B,
          a.T,
          a.Tk,
          a.heads,
          a.kvHeads,
          a.headDim,
          a.scale,
          ...at(dy),
          ...at(q),
          ...at(k),
          ...at(v),
          ...at(probs),
          ...at(dq),
          ...at(dk),
          ...at(dv),
        );
      });
    },
    [FUSED.tokenLogProb]: (p) => {
      const [N, V] = shapeOf(p, "logits");
      return withMemory(
        p,
        FUSED.tokenLogProb,
        [
          ["logits", N * V],
          ["target", N, "int32"],
        ],
        [[2, N]],
        (at, [z, t], [out]) => addon.logprobFwd(N, V, ...at(z), ...at(t), ...at(out)),
        `token id outside the vocabulary of ${V}`,
      );
    },
    [FUSED.tokenLogProbGrad]: (p) => {
      const [N, V] = shapeOf(p, "logits");
      return withMemory(
        p,
        FUSED.tokenLogProbGrad,
        [
          ["logits", N * V],
          ["target", N, "int32"],
          ["dy", 2 * N],
        ],
        [[N, V]],
        (at, [z, t, dy], [dz]) => addon.logprobBwd(N, V, ...at(z), ...at(t), ...at(dy), ...at(dz)),
      );
    },
    [FUSED.adamW]: (p) => {
      const shape = shapeOf(p, "p");
      const n = sizeOf(shape);
      const a = attrsOf<AdamWHyper>(p);
      return withMemory(
        p,
        FUSED.adamW,
        [
          ["p", n],
          ["m", n],
          ["v", n],
          ["g", n],
        ],
        [shape, shape, shape],
        (at, [pi, m, v, g], [p2, m2, v2]) =>
          addon.adamw(
            n,
            a.lr,
            a.b1,
            a.b2,
            a.eps,
            a.wd,
            a.bc1,
            a.bc2,
            a.clip,
            ...at(pi),
            ...at(m),
            ...at(v),
            ...at(g),
            ...at(p2),
            ...at(m2),
            ...at(v2),
          ),
      );
    },
    // AdamW with 8-bit moments (native/blas/src/fused.h): codes packed four to an int32, one scale per 256 values.
    [FUSED.adamW8]: (p) => {
      const shape = shapeOf(p, "p");
      const n = sizeOf(shape);
      const packed = Math.ceil(n / 4);
      const blocks = Math.ceil(n / ADAMW8_BLOCK);
      const a = attrsOf<AdamWHyper>(p);
      return withMemory(
        p,
        FUSED.adamW8,
        [
          ["p", n],
          ["g", n],
          ["mq", packed, "int32"],
          ["ms", blocks],
          ["vq", packed, "int32"],
          ["vs", blocks],
        ],
        [shape, [[packed], "int32"], [blocks], [[packed], "int32"], [blocks]],
        (at, ins, outs) => addon.adamw8(n, a.lr, a.b1, a.b2, a.eps, a.wd, a.bc1, a.bc2, a.clip, ...ins.flatMap(at), ...outs.flatMap(at)),
      );
    },
    [FUSED.adamW8Decode]: (p) => {
      const n = (p.attrs as unknown as { n: number }).n;
      const packed = Math.ceil(n / 4);
      const blocks = Math.ceil(n / ADAMW8_BLOCK);
      return withMemory(
        p,
        FUSED.adamW8Decode,
        [
          ["mq", packed, "int32"],
          ["ms", blocks],
          ["vq", packed, "int32"],
          ["vs", blocks],
        ],
        [[n], [n]],
        (at, ins, outs) => addon.adamw8Decode(n, ...ins.flatMap(at), ...outs.flatMap(at)),
      );
    },
    [FUSED.adamW8Encode]: (p) => {
      const n = sizeOf(shapeOf(p, "m"));
      const packed = Math.ceil(n / 4);
      const blocks = Math.ceil(n / ADAMW8_BLOCK);
      return withMemory(
        p,
        FUSED.adamW8Encode,
        [
          ["m", n],
          ["v", n],
        ],
        [[[packed], "int32"], [blocks], [[packed], "int32"], [blocks]],
        (at, ins, outs) => addon.adamw8Encode(n, ...ins.flatMap(at), ...outs.flatMap(at)),
      );
    },
    // bfloat16 weights (native/blas/src/bf16.h), packed two to an int32: `rows` x `cols` is the matrix's shape.
    [FUSED.bf16Encode]: (p) => {
      const n = sizeOf(shapeOf(p, "x"));
      const half = Math.ceil(n / 2);
      return withMemory(p, FUSED.bf16Encode, [["x", n]], [[[half], "int32"]], (at, [x], [w]) => addon.bf16Encode(n, ...at(x), ...at(w)));
    },
    [FUSED.bf16Decode]: (p) => {
      const { rows, cols } = attrsOf<Bf16Attrs>(p);
      const n = rows * cols;
      return withMemory(p, FUSED.bf16Decode, [["w", Math.ceil(n / 2), "int32"]], [[rows, cols]], (at, [w], [x]) =>
        addon.bf16Decode(n, ...at(w), ...at(x)),
      );
    },
    [FUSED.bf16MatMul]: (p) => {
      const { rows, cols, transposeW } = attrsOf<Bf16Attrs & { transposeW: boolean }>(p);
      const [M, K] = shapeOf(p, "x");
      const N = transposeW ? rows : cols;
      if (K !== (transposeW ? cols : rows)) {
        throw new Error(`${FUSED.bf16MatMul}: x [${M}, ${K}] does not fit a [${rows}, ${cols}] weight${transposeW ? " transposed" : ""}`);
      }
      return withMemory(
        p,
        FUSED.bf16MatMul,
        [
          ["x", M * K],
          ["w", Math.ceil((rows * cols) / 2), "int32"],
        ],
        [[M, N]],
        (at, [x, w], [y]) => addon.bf16MatMul(M, K, N, transposeW ? 1 : 0, ...at(x), ...at(w), ...at(y)),
      );
    },
    [FUSED.bf16Gather]: (p) => {
      const { rows, cols } = attrsOf<Bf16Attrs>(p);
      const [n] = shapeOf(p, "ids");
      return withMemory(
        p,
        FUSED.bf16Gather,
        [
          ["w", Math.ceil((rows * cols) / 2), "int32"],
          ["ids", n, "int32"],
        ],
        [[n, cols]],
        (at, [w, ids], [out]) => addon.bf16Gather(rows, cols, n, ...at(w), ...at(ids), ...at(out)),
        `a token id is outside the ${rows}-row table`,
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
        h: B * D,
        ln1: D,
        wq: D * qw,
        wk: D * kw,
        wv: D * kw,
        bq: qw,
        bk: kw,
        bv: kw,
        wo: qw * D,
        ln2: D,
        wg: D * mlp,
        wu: D * mlp,
        wd: mlp * D,
        cacheK: B * cap * kw,
        cacheV: B * cap * kw,
        keyMask: B * cap,
        cos: maxPos * a.headDim,
        sin: maxPos * a.headDim,
        positions: B,
      };
      const present = DECODE_INPUTS.filter((n) => inputs[n] !== undefined);
      return withMemory(
        p,
        FUSED.decodeLayer,
        present.map((n): InputSpec => [n, expected[n], n === "positions" ? "int32" : "float32"]),
        [[B, D]],
        (at, ins, [out]) => {
          const args = DECODE_INPUTS.flatMap((n): [Buffer4 | null, number] => {
            const i = present.indexOf(n);
            return i < 0 ? [null, 0] : [...at(ins[i])];
          });
          const bias = inputs.bq !== undefined ? 1 : 0;
          return addon.decodeLayer(
            B,
            D,
            a.heads,
            a.kvHeads,
            a.headDim,
            mlp,
            a.past,
            cap,
            maxPos,
            a.eps,
            1 / Math.sqrt(a.headDim),
            bias,
            ...args,
            ...at(out),
          );
        },
        `decode position ${a.past} (or a row's rotary position) is outside the cache (${cap}) or rotary table (${maxPos})`,
      );
    },
  };
}

/** Values per scale of the 8-bit AdamW moments (ADAMW8_BLOCK in fused.h). */
export const ADAMW8_BLOCK = 256;

/** Whether this addon build has the fused kernels (an addon built before they existed does not). */
export function hasFusedKernels(addon: BlasAddon): boolean {
  return typeof addon.attnFwd === "function" && typeof addon.decodeLayer === "function";
}

/** Registers the fused kernels on the wasm or cpu backend; returns their names. */
export function registerFusedKernels(addon: BlasAddon, backendName: string): string[] {
  if ((backendName !== "wasm" && backendName !== "cpu") || !hasFusedKernels(addon)) return [];
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
 * Sum of squares of float32 tensors (the global gradient norm), one native pass each instead of square + sum +
 * addN; null when the tensors are not on a backend the native addon serves.
 */
export function nativeSumSquares(addon: BlasAddon | null, tensors: tf.Tensor[]): number | null {
  const mem = kernelMemory(tf.getBackend(), tf.backend());
  if (!addon || !mem || !hasFusedKernels(addon)) return null;
  let total = 0;
  for (const t of tensors) {
    if (t.dtype !== "float32") return null;
    const [buf, off] = mem.at(t);
    if (!(buf instanceof Float32Array)) return null;
    total += addon.sumSquares(t.size, buf, off);
  }
  return total;
}

/** AdamW's hyperparameters as the kernels take them (bias corrections and clip factor precomputed; policy/fused.ts). */
type AdamWHyper = Record<"lr" | "b1" | "b2" | "eps" | "wd" | "bc1" | "bc2" | "clip", number>;

/**
 * One AdamW step written into p, m and v's own buffers, bypassing TF.js's immutable tensors. Returns false, doing
 * nothing, unless each of the three buffers is held by that tensor alone: a KL reference filled by `assign`
 * shares the policy's buffers until the first step replaces them, and overwriting a shared buffer would move the
 * reference too. Why: the out-of-place kernel allocates three fresh buffers per variable per step, whose page
 * faults cost a 0.5B model more than the update's arithmetic (docs/cpu-training.md).
 */
export function nativeAdamWInPlace(
  addon: BlasAddon | null,
  p: tf.Tensor,
  m: tf.Tensor,
  v: tf.Tensor,
  g: tf.Tensor,
  hp: AdamWHyper,
): boolean {
  const backend = tf.backend() as unknown as { refCount?(dataId: object): number };
  const mem = kernelMemory(tf.getBackend(), backend);
  if (!addon?.adamwInPlace || !mem || typeof backend.refCount !== "function") return false;
  const tensors = [p, m, v, g];
  if (tensors.some((t) => t.dtype !== "float32" || t.size !== p.size)) return false;
  const ids = new Set(tensors.map((t) => t.dataId));
  if (ids.size !== tensors.length) return false;
  if ([p, m, v].some((t) => backend.refCount!(t.dataId) !== 1)) return false;
  const at = tensors.map((t) => mem.at(t));
  if (at.some(([buf]) => !(buf instanceof Float32Array))) return false;
  const [pBuf, pOff] = at[0] as [Float32Array, number];
  // under bf16 compute the weight's bf16 copy is rewritten in the same pass (bf16-weight-cache.ts)
  const rewrite = addon.adamwInPlaceBf16;
  const copy = rewrite && pOff === 0 && pBuf.length === p.size ? weightCopyOf(pBuf) : null;
  if (rewrite && copy) rewrite(p.size, hp.lr, hp.b1, hp.b2, hp.eps, hp.wd, hp.bc1, hp.bc2, hp.clip, ...at.flat(), copy, 0);
  else addon.adamwInPlace(p.size, hp.lr, hp.b1, hp.b2, hp.eps, hp.wd, hp.bc1, hp.bc2, hp.clip, ...at.flat());
  weightsWrittenInPlace(pBuf, copy !== null);
  return true;
}
