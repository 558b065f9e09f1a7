/**
 * bf16 copies of the weights for `policy.compute: "bf16"`, made once per optimizer step instead of once per product.
 *
 * Under bf16 compute every product rounds both operands; a weight W is an operand of the forward x·W and of the
 * input gradient dy·Wᵀ (a tied embedding of the head's x·Eᵀ and dy·E), so it was rounded twice a step — at 0.5B,
 * 494M values a time. PyTorch's autocast keeps the same kind of cache for the same reason. Here a variable's values
 * array gets one packed bf16 copy (2 bytes a value), refreshed when the weights may have changed:
 *
 * - TF.js tensors are immutable, so an array's contents change only where a kernel writes in place; for variables
 *   that is AdamW in place (fused-kernels.ts), which also rewrites the array's copy as it goes when there is one
 *   (rounding each block of new weights while it is in cache costs far less than a separate pass over all of them
 *   before the next forward) and says so through `weightsWrittenInPlace`; `assign` gives a variable a new array,
 *   which is a new key here;
 * - keys are the arrays themselves (WeakMap), so a freed array drops its copy and a new one never meets a stale copy,
 *   even where glibc hands out the same memory again.
 *
 * Only variables' arrays are cached (activations are used once or twice and would only add memory), and only for the
 * products that run on oneDNN (the thin ones are rounded as they are multiplied: native/blas/src/gemm.c).
 */
import * as tf from "@tensorflow/tfjs";
import type { BlasAddon } from "./addon";

type DataId = object;

interface Copy {
  /** The copy matches the array: made or refreshed since the array's last in-place write. */
  fresh: boolean;
  /** `staleAll` when the copy was made fresh: any later call of weightsWrittenInPlace() without an array voids it. */
  epoch: number;
  packed: Int32Array;
}

/** Bumped by an in-place write that names no array: every copy made before it is stale. */
let staleAll = 0;
/** Every in-place write, for the variable-id set's rebuild and for tests (how often weights were rewritten). */
let writes = 0;
let roundings = 0;
const copies = new WeakMap<Float32Array, Copy>();
let variableIds = new WeakSet<DataId>();
let variablesSeen = -1;
let idsWrites = -1;

/** ROLLOUT_LAB_BF16_WEIGHT_CACHE=0 turns the cache off (before/after benches); anything else leaves it on. */
export const bf16WeightCacheEnabled = (): boolean => process.env.ROLLOUT_LAB_BF16_WEIGHT_CACHE !== "0";

/**
 * Called after a kernel wrote a variable's values in place: `values`' copy is stale from now on, unless the kernel
 * rewrote it too (`copyRewritten`); without `values`, every copy is.
 */
export function weightsWrittenInPlace(values?: Float32Array, copyRewritten = false): void {
  writes++;
  if (!values) {
    staleAll++;
    return;
  }
  const copy = copies.get(values);
  if (copy) {
    copy.fresh = copyRewritten;
    copy.epoch = staleAll;
  }
}

/** The packed bf16 buffer kept for `values`, if any: for an in-place update to rewrite along with the array. */
export function weightCopyOf(values: Float32Array): Int32Array | null {
  return copies.get(values)?.packed ?? null;
}

/** Below this many values a weight is rounded with its product as before (the copy's bookkeeping would cost more). */
const MIN_CACHED_VALUES = 1 << 16;

/** Whether dataId is a registered variable's data: the set is rebuilt when variables come or go, or after a step. */
function isVariableData(dataId: DataId): boolean {
  const registered = (tf.engine().state as unknown as { registeredVariables: Record<string, tf.Variable> }).registeredVariables;
  const vars = Object.values(registered);
  if (vars.length !== variablesSeen || idsWrites !== writes) {
    variableIds = new WeakSet(vars.map((v) => v.dataId));
    variablesSeen = vars.length;
    idsWrites = writes;
  }
  return variableIds.has(dataId);
}

/** B rounded to bf16 (packed halves), or null when B is not a variable's array worth caching. */
export function roundedWeight(addon: BlasAddon, dataId: DataId, values: Float32Array): Int32Array | null {
  if (values.length < MIN_CACHED_VALUES || !isVariableData(dataId)) return null;
  let copy = copies.get(values);
  if (!copy) {
    copy = { fresh: false, epoch: staleAll, packed: new Int32Array((values.length + 1) >> 1) };
    copies.set(values, copy);
  }
  if (!copy.fresh || copy.epoch !== staleAll) {
    addon.bf16Encode(values.length, values, 0, copy.packed, 0);
    roundings++;
    copy.fresh = true;
    copy.epoch = staleAll;
  }
  return copy.packed;
}

/** For tests: how many times a whole weight has been rounded by a product since the process started. */
export const bf16WeightRoundings = (): number => roundings;
