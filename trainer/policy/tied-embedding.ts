/**
 * A trainable tied embedding read twice by one forward pass — its rows at the input, its transpose as the output
 * head — with one gradient buffer instead of two.
 *
 * Left to TF.js, each use gets its own [vocab, hidden] gradient and the two are added: the lookup's is a
 * zero-filled dense array with a few hundred rows set, the sum a third array. At Qwen2.5-0.5B's vocabulary that is
 * 544 MB zeroed, 544 MB summed and about 1 GB more garbage per step (its page faults and the major GCs its external
 * memory sets off included, ~0.25 s of a 6 s bf16 step on 2 cores). Here the head's backward, which runs first (the
 * head is the forward's last use of the table), keeps its weight gradient dlogitsᵀ·h aside instead of handing it to
 * TF.js; the lookup's backward then adds its rows into that buffer in place and returns it as the table's only
 * gradient. Where the buffer cannot be written in place (no native kernel memory, a shared buffer), the sum is
 * made the ordinary way, so the gradient is the same either way (tied-embedding.test.ts).
 *
 * One instance per forward pass: the kept gradient belongs to that pass's backward.
 */
import * as tf from "@tensorflow/tfjs";
import { kernelMemory } from "../backend/native/kernel-memory";
import { matMulT } from "./ops";

export class TiedEmbedding {
  /** Rows of the table picked by the forward's ids [rows, hidden]: the input of the first layer. */
  readonly rows: tf.Tensor2D;
  /** The head's weight gradient, between the head's backward and the lookup's. */
  private headGradient: tf.Tensor2D | null = null;

  /**
   * Looks the ids up at once, so the lookup is on the tape before the head: its backward then runs after the head's
   * and finds the head's gradient. The head must read hidden states computed from `rows` (a decoder's always are).
   */
  constructor(
    private readonly table: tf.Tensor2D,
    ids: Int32Array,
  ) {
    this.rows = this.lookup(ids);
  }

  private lookup(ids: Int32Array): tf.Tensor2D {
    const [V, D] = this.table.shape;
    const idx = tf.tensor1d(ids, "int32");
    const f = tf.customGrad((t) => ({
      value: tf.gather(t as tf.Tensor2D, idx),
      gradFunc: (dy: tf.Tensor) => {
        const fromHead = this.headGradient;
        this.headGradient = null;
        const rowGrads = dy.dataSync() as Float32Array;
        if (fromHead && addRowsInPlace(fromHead, ids, rowGrads, D)) return fromHead;
        const dense = new Float32Array(V * D);
        addRows(dense, 0, ids, rowGrads, D);
        const own = tf.tensor2d(dense, [V, D]);
        return fromHead ? tf.add(fromHead, own) : own;
      },
    }));
    const y = f(this.table) as tf.Tensor2D;
    idx.dispose();
    return y;
  }

  /** hf [rows, hidden] · tableᵀ: the logits [rows, vocab]. Differentiated for hf; the table's part is kept for rows(). */
  head(hf: tf.Tensor2D): tf.Tensor2D {
    const f = tf.customGrad((x, save) => {
      const rows = x as tf.Tensor2D;
      (save as tf.GradSaveFunc)([rows]);
      return {
        value: matMulT(rows, this.table, false, true),
        gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
          const dy2 = dy as tf.Tensor2D;
          this.headGradient?.dispose(); // a second backward of the same pass (not done today) must not leak the first
          this.headGradient = matMulT(dy2, saved[0] as tf.Tensor2D, true, false);
          return tf.matMul(dy2, this.table);
        },
      };
    });
    return f(hf) as tf.Tensor2D;
  }
}

function addRows(out: Float32Array, offset: number, ids: Int32Array, rowGrads: Float32Array, width: number): void {
  for (let r = 0; r < ids.length; r++) {
    const dst = offset + ids[r] * width;
    const src = r * width;
    for (let c = 0; c < width; c++) out[dst + c] += rowGrads[src + c];
  }
}

/** Adds the rows into `target`'s own buffer when that buffer is the target's alone; false (untouched) otherwise. */
function addRowsInPlace(target: tf.Tensor2D, ids: Int32Array, rowGrads: Float32Array, width: number): boolean {
  const backend = tf.backend() as unknown as { refCount?(dataId: object): number };
  const mem = kernelMemory(tf.getBackend(), backend);
  if (!mem || typeof backend.refCount !== "function" || backend.refCount(target.dataId) !== 1) return false;
  const [buf, off] = mem.at(target);
  if (!(buf instanceof Float32Array)) return false;
  addRows(buf, off, ids, rowGrads, width);
  return true;
}
