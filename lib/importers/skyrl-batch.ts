/**
 * SkyRL's training batches: with `trainer.dump_data_batch=true` skyrl-train pickles each step's `TrainingInputBatch`
 * to `<export_path>/dumped_data/global_step_<N>_training_input.pkl` (trainer.py `dump_data`, after advantages are
 * computed). As `TensorBatch.__reduce__` / `__getstate__` write it (skyrl/backends/skyrl_train/training_batch.py),
 * the pickle calls `_rebuild_tensor_batch(TrainingInputBatch, state)` with
 *   state = { batch_dict: { <key>: { format: "numpy", data: <raw bytes>, shape, dtype } | { format: "torch", … } |
 *                                  { format: "tensor_list", items } | None },
 *             batch_size, device, metadata: { response_length, avg_response_length, policy_prompt_boundaries,
 *                                             metrics: { avg_final_rewards, avg_advantages, … }, pad_size?, … } }.
 * The tensors (convert_prompts_responses_to_batch_tensors): `sequences` / `attention_mask` [B, prompt + response],
 * left-padded; response-level tensors [B, max response] (`response_mask`, `loss_mask`, `advantages`,
 * `action_log_probs`, `base_action_log_probs`, `rollout_logprobs`, `kl`, `returns`, `values`) right-aligned, so row
 * i's response is the last Σ response_mask[i] tokens of its sequence. `rewards` and the uids are removed before the
 * dump; `policy_prompt_boundaries` [(start, end)] still says which rows share a prompt.
 *
 * Read with lib/importers/pickle.ts (nothing is executed). Tensors SkyRL had to store with torch.save (bfloat16)
 * are named as not read.
 */
import { field, isCall, isGlobal, readPickle, type PickleValue } from "./pickle";

export interface SkyrlBatchRow {
  index: number;
  /** Rows sharing a prompt (from policy_prompt_boundaries), else null. */
  group: number | null;
  prompt: number[];
  response: number[];
  /** Per response token; each of these is present when the batch has the tensor. */
  lossMask: number[];
  advantages?: number[];
  actionLogProbs?: number[];
  baseLogProbs?: number[];
  rolloutLogProbs?: number[];
  kl?: number[];
  rewards?: number[];
}

export interface SkyrlBatch {
  rows: SkyrlBatchRow[];
  /** metadata["metrics"] (avg_final_rewards, avg_advantages, avg_kl, …). */
  metrics: Record<string, number>;
  /** Tensors present but not read (stored with torch.save, or not a per-row tensor). */
  unread: string[];
}

interface Tensor {
  shape: number[];
  data: Float64Array;
}

const DTYPES: Record<string, [bytes: number, read: (v: DataView, at: number) => number]> = {
  int64: [8, (v, at) => Number(v.getBigInt64(at, true))],
  int32: [4, (v, at) => v.getInt32(at, true)],
  int16: [2, (v, at) => v.getInt16(at, true)],
  int8: [1, (v, at) => v.getInt8(at)],
  uint8: [1, (v, at) => v.getUint8(at)],
  bool: [1, (v, at) => v.getUint8(at)],
  float64: [8, (v, at) => v.getFloat64(at, true)],
  float32: [4, (v, at) => v.getFloat32(at, true)],
  float16: [2, (v, at) => half(v.getUint16(at, true))],
};

function half(h: number): number {
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

export class SkyrlBatchError extends Error {}

function tensorOf(key: string, v: PickleValue): Tensor | string {
  const format = field(v, "format");
  if (format === "torch") return `${key} (stored with torch.save, e.g. bfloat16)`;
  if (format === "tensor_list") return `${key} (a list of variable-shape tensors)`;
  const data = field(v, "data");
  const shape = field(v, "shape");
  const dtype = String(field(v, "dtype") ?? "");
  if (!(data instanceof Uint8Array) || !Array.isArray(shape) || !shape.every((d) => typeof d === "number")) {
    return `${key} (not a serialised tensor)`;
  }
  const kind = DTYPES[dtype];
  if (!kind) return `${key} (dtype ${dtype})`;
  const n = (shape as number[]).reduce((a, b) => a * b, 1);
  if (n * kind[0] !== data.length)
    throw new SkyrlBatchError(`tensor ${key}: ${data.length} bytes do not fill shape [${shape}] of ${dtype}`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = kind[1](view, i * kind[0]);
  return { shape: shape as number[], data: out };
}

/** The `state` SkyRL pickled: `_rebuild_tensor_batch(cls, state)`, or an older default pickle's BUILD state. */
function batchState(root: PickleValue): PickleValue {
  if (isCall(root)) {
    const fn = isGlobal(root.$call) ? root.$call.$global : "";
    if (fn.endsWith("_rebuild_tensor_batch") && root.args[1] instanceof Map) return root.args[1];
    if (root.state instanceof Map) return root.state;
  }
  throw new SkyrlBatchError("not a pickled SkyRL TensorBatch (no _rebuild_tensor_batch call or batch state inside)");
}

const row = (t: Tensor, i: number): number[] => {
  const width = t.shape[1] ?? 1;
  return Array.from(t.data.subarray(i * width, (i + 1) * width));
};

export function readSkyrlBatch(bytes: Uint8Array): SkyrlBatch {
  const state = batchState(readPickle(bytes));
  const dict = field(state, "batch_dict");
  if (!(dict instanceof Map)) throw new SkyrlBatchError("the batch state has no batch_dict");
  const tensors = new Map<string, Tensor>();
  const unread: string[] = [];
  for (const [key, value] of dict) {
    if (value === null || typeof key !== "string") continue;
    const t = tensorOf(key, value);
    if (typeof t === "string") unread.push(t);
    else tensors.set(key, t);
  }
  const sequences = tensors.get("sequences");
  const attention = tensors.get("attention_mask");
  const responseMask = tensors.get("response_mask");
  if (!sequences || !attention || !responseMask) throw new SkyrlBatchError("the batch lacks sequences, attention_mask or response_mask");
  const metadata = field(state, "metadata");
  const padSize = Number(field(metadata, "pad_size") ?? 0) || 0;
  const groups = new Map<number, number>();
  const boundaries = field(metadata, "policy_prompt_boundaries");
  if (Array.isArray(boundaries)) {
    boundaries.forEach((b, g) => {
      if (Array.isArray(b) && typeof b[0] === "number" && typeof b[1] === "number") for (let i = b[0]; i < b[1]; i++) groups.set(i, g);
    });
  }
  const metrics: Record<string, number> = {};
  const m = field(metadata, "metrics");
  if (m instanceof Map) for (const [k, v] of m) if (typeof k === "string" && typeof v === "number" && Number.isFinite(v)) metrics[k] = v;

  const B = sequences.shape[0] - padSize;
  const perToken: [keyof SkyrlBatchRow, string][] = [
    ["advantages", "advantages"],
    ["actionLogProbs", "action_log_probs"],
    ["baseLogProbs", "base_action_log_probs"],
    ["rolloutLogProbs", "rollout_logprobs"],
    ["kl", "kl"],
    ["rewards", "rewards"],
  ];
  const rows: SkyrlBatchRow[] = [];
  for (let i = 0; i < B; i++) {
    const mask = row(attention, i);
    const real = row(sequences, i).filter((_, j) => mask[j] !== 0);
    const respMask = row(responseMask, i);
    const n = respMask.reduce((a, b) => a + (b !== 0 ? 1 : 0), 0);
    // response-level tensors are right-aligned: the row's response is their last n values
    const tail = (t: Tensor | undefined) => (t ? row(t, i).slice(respMask.length - n) : undefined);
    const out: SkyrlBatchRow = {
      index: i,
      group: groups.get(i) ?? null,
      prompt: real.slice(0, real.length - n),
      response: real.slice(real.length - n),
      lossMask: tail(tensors.get("loss_mask")) ?? Array<number>(n).fill(1),
    };
    for (const [name, key] of perToken) {
      const values = tail(tensors.get(key));
      if (values) (out as unknown as Record<string, number[]>)[name] = values;
    }
    rows.push(out);
  }
  return { rows, metrics, unread };
}

/**
 * The batch as text lines for the importer (every importer reads text): a first line `{"skyrl_batch": {metrics,
 * unread}}`, then one JSON row per sample.
 */
export function skyrlBatchToJsonLines(bytes: Uint8Array): string {
  const batch = readSkyrlBatch(bytes);
  return [
    JSON.stringify({ skyrl_batch: { metrics: batch.metrics, unread: batch.unread } }),
    ...batch.rows.map((r) => JSON.stringify(r)),
  ].join("\n");
}
