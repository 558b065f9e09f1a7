/**
 * Training checkpoints, laid out like a transformers `save_pretrained` folder plus trainer state:
 *
 *   checkpoint-000120/
 *     config.json, model.safetensors     loadable by AutoModelForCausalLM.from_pretrained (base weights); from a Hugging
 *                                        Face folder: its config.json as it was, each weight in its dtype (bf16 rounded
 *                                        to nearest even), and model.safetensors.index.json so vLLM reads no other file
 *     master_weights.safetensors         float32 values of weights that dtype rounds, so a resumed run continues exactly
 *     adapter_model.safetensors, adapter_config.json   PEFT LoRA adapters, when LoRA is on
 *     optimizer.safetensors              AdamW moments (<param>.exp_avg / .exp_avg_sq)
 *     trainer_state.json                 step, optimizer step, RNG state, data cursor, free-form extras
 *     tokenizer.json, tokenizer_config.json, chat_template.jinja, generation_config.json, …   the policy's, copied
 *     COMPLETE                           written last
 *
 * A crash mid-save must never leave a checkpoint that looks usable: everything is written into a temporary sibling
 * folder, each file fsync'd, COMPLETE written last, the folder renamed into place and the parent fsync'd.
 * Readers ignore folders without COMPLETE.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import * as tf from "@tensorflow/tfjs";
import type { DecoderLM } from "../policy/model";
import type { AdamW } from "../policy/optimizer";
import { decodeSafetensors, encodeSafetensors, readSafetensors, f16Bits, f16ToF32, type SafeTensor } from "./safetensors";
import { readHfDtypes } from "./hf-load";
import { hfConfigFromModel } from "./hf-config";
import { TOKENIZER_FILES } from "../policy/chat/load-chat-format";
import { loadLoraTensors, loadModelTensors, loraTensors, modelTensors } from "./weights";

export interface TrainerState {
  step: number;
  rngState: number;
  /** Position in the task stream (e.g. index of the next task batch). */
  dataCursor: number;
  [extra: string]: unknown;
}

export class IncompleteCheckpointError extends Error {
  readonly code = "CHECKPOINT_INCOMPLETE";
  constructor(dir: string) {
    super(`${dir} is not a complete checkpoint (no COMPLETE marker); it was probably interrupted while saving.`);
    this.name = "IncompleteCheckpointError";
  }
}

async function writeSynced(file: string, data: Buffer | string): Promise<void> {
  const fh = await fs.open(file, "w");
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Name a variable gets in optimizer.safetensors: its transformers / PEFT name. */
function paramNamer(model: DecoderLM): (v: tf.Variable) => string {
  const names = new Map<string, string>();
  for (const [n, v] of model.params) names.set(v.name, n);
  for (const [n, v] of model.lora?.namedVariables() ?? []) names.set(v.name, n);
  return (v) => names.get(v.name) ?? v.name;
}

/** float32 copies of the weights model.safetensors rounded (bf16 / f16 folders), read back over them on resume. */
export const MASTER_WEIGHTS = "master_weights.safetensors";

export interface SaveInput {
  model: DecoderLM;
  optimizer?: AdamW;
  state: TrainerState;
  /**
   * The policy's tokenizer folder: its tokenizer.json, tokenizer_config.json (chat template), chat_template.jinja and
   * generation_config.json are copied, so the checkpoint loads as the model it was trained as (transformers, vLLM,
   * or a run's policy.model).
   */
  tokenizerFolder?: string | null;
  /**
   * The Hugging Face folder the model was loaded from: its config.json is copied unchanged (max_position_embeddings,
   * bos / eos ids and every other key: only the weights were trained) and each weight is saved in the dtype it had
   * there. Without it (a built-in size) config.json is written from the model's config and the weights as float32.
   */
  source?: string | null;
}

/**
 * Files besides the weights that make a folder servable as the model it was loaded as; copied byte for byte from the
 * tokenizer folder when there (tokenizer.model is binary).
 */
export const COPIED_MODEL_FILES = [
  ...TOKENIZER_FILES,
  "special_tokens_map.json",
  "added_tokens.json",
  "vocab.json",
  "merges.txt",
  "tokenizer.model",
];

/** The weights that rounding to their file dtype changes, as float32: what a resumed run must continue from. */
function roundedAway(tensors: Map<string, SafeTensor>): Map<string, SafeTensor> {
  const out = new Map<string, SafeTensor>();
  for (const [name, t] of tensors) {
    if ((t.dtype !== "BF16" && t.dtype !== "F16") || !(t.data instanceof Float32Array)) continue;
    const data = t.data;
    // bfloat16 is the top half of a float32: exact when the low half is zero
    const bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
    const changed =
      t.dtype === "BF16" ? bits.some((u) => (u & 0xffff) !== 0) : data.some((x) => f16ToF32(f16Bits(x)) !== x && !Number.isNaN(x));
    if (changed) out.set(name, { ...t, dtype: "F32" });
  }
  return out;
}

/** Atomically writes a checkpoint to `dir` (replacing an existing one). Returns `dir`. */
export async function saveCheckpoint(dir: string, input: SaveInput): Promise<string> {
  const parent = path.dirname(dir);
  await fs.mkdir(parent, { recursive: true });
  const tmp = path.join(parent, `.${path.basename(dir)}.tmp-${process.pid}-${Date.now()}`);
  await fs.mkdir(tmp);
  const { model, optimizer, state } = input;
  const sourceConfig = input.source ? await fs.readFile(path.join(input.source, "config.json")).catch(() => null) : null;
  await writeSynced(path.join(tmp, "config.json"), sourceConfig ?? JSON.stringify(hfConfigFromModel(model.config), null, 2));
  const weights = modelTensors(model, input.source ? await readHfDtypes(input.source) : new Map());
  await writeSynced(path.join(tmp, "model.safetensors"), encodeSafetensors(weights, { format: "pt" }));
  // Without an index, vLLM loads every *.safetensors of the folder (the optimizer's and the adapters' too).
  const weightMap = Object.fromEntries([...weights.keys()].map((name) => [name, "model.safetensors"]));
  await writeSynced(path.join(tmp, "model.safetensors.index.json"), JSON.stringify({ metadata: {}, weight_map: weightMap }, null, 2));
  const masters = roundedAway(weights);
  if (masters.size > 0) await writeSynced(path.join(tmp, MASTER_WEIGHTS), encodeSafetensors(masters));
  if (model.lora) {
    const c = model.lora.config;
    await writeSynced(path.join(tmp, "adapter_model.safetensors"), encodeSafetensors(loraTensors(model), { format: "pt" }));
    await writeSynced(
      path.join(tmp, "adapter_config.json"),
      JSON.stringify(
        {
          peft_type: "LORA",
          r: c.rank,
          lora_alpha: c.alpha,
          target_modules: c.targets,
          lora_dropout: 0,
          bias: "none",
          task_type: "CAUSAL_LM",
        },
        null,
        2,
      ),
    );
  }
  if (optimizer) {
    const moments = new Map<string, SafeTensor>();
    optimizer.forEachStateTensor(paramNamer(model), (name, t) => {
      moments.set(name, { dtype: "F32", shape: [...t.shape], data: new Float32Array(t.dataSync() as Float32Array) });
    });
    await writeSynced(path.join(tmp, "optimizer.safetensors"), encodeSafetensors(moments, { step: String(optimizer.step) }));
  }
  const trainerState = { ...state, optimizerStep: optimizer?.step ?? null, savedAt: new Date().toISOString() };
  await writeSynced(path.join(tmp, "trainer_state.json"), JSON.stringify(trainerState, null, 2));
  for (const name of input.tokenizerFolder ? COPIED_MODEL_FILES : []) {
    const bytes = await fs.readFile(path.join(input.tokenizerFolder!, name)).catch(() => null);
    if (bytes !== null) await writeSynced(path.join(tmp, name), bytes);
  }
  await writeSynced(path.join(tmp, "COMPLETE"), `${trainerState.savedAt}\n`);
  await syncDir(tmp);
  const old = `${tmp}.old`;
  const existed = await fs.rename(dir, old).then(
    () => true,
    () => false,
  );
  await fs.rename(tmp, dir);
  await syncDir(parent);
  if (existed) await fs.rm(old, { recursive: true, force: true });
  return dir;
}

export async function isCompleteCheckpoint(dir: string): Promise<boolean> {
  return fs.access(path.join(dir, "COMPLETE")).then(
    () => true,
    () => false,
  );
}

/** Restores weights (and LoRA, optimizer moments when given) from a complete checkpoint; returns trainer state. */
export async function loadCheckpoint(
  dir: string,
  model: DecoderLM,
  optimizer?: AdamW,
): Promise<TrainerState & { optimizerStep: number | null }> {
  if (!(await isCompleteCheckpoint(dir))) throw new IncompleteCheckpointError(dir);
  const weights = await readSafetensors(path.join(dir, "model.safetensors"));
  const masterFile = path.join(dir, MASTER_WEIGHTS);
  const masters = await fs.access(masterFile).then(
    () => readSafetensors(masterFile),
    () => null,
  );
  for (const [name, t] of masters?.tensors ?? []) weights.tensors.set(name, t);
  loadModelTensors(model, weights.tensors, path.join(dir, "model.safetensors"));
  if (model.lora) {
    const file = path.join(dir, "adapter_model.safetensors");
    loadLoraTensors(model, (await readSafetensors(file)).tensors, file);
  }
  const state = JSON.parse(await fs.readFile(path.join(dir, "trainer_state.json"), "utf8"));
  if (optimizer) {
    const file = path.join(dir, "optimizer.safetensors");
    const { tensors, metadata } = decodeSafetensors(await fs.readFile(file), file);
    const asTensors = new Map<string, tf.Tensor>();
    for (const [name, t] of tensors) asTensors.set(name, tf.tensor(t.data as Float32Array, t.shape));
    try {
      optimizer.loadStateTensors(Number(metadata.step ?? state.optimizerStep ?? 0), asTensors, paramNamer(model));
    } finally {
      tf.dispose([...asTensors.values()]);
    }
  }
  return state;
}

/** The newest complete `checkpoint-*` folder under `parent` (by step number in the name), or null. */
export async function latestCheckpoint(parent: string): Promise<string | null> {
  const entries = await fs.readdir(parent).catch(() => [] as string[]);
  const candidates = entries
    .map((e) => ({ e, step: /^checkpoint-(\d+)$/.exec(e)?.[1] }))
    .filter((x): x is { e: string; step: string } => x.step !== undefined)
    .sort((a, b) => Number(b.step) - Number(a.step));
  for (const c of candidates) {
    const dir = path.join(parent, c.e);
    if (await isCompleteCheckpoint(dir)) return dir;
  }
  return null;
}

export const checkpointDirName = (step: number) => `checkpoint-${String(step).padStart(6, "0")}`;

/**
 * Deletes the half-written `.checkpoint-*.tmp-*` folders a crash left in a run's checkpoint folder (saveCheckpoint
 * writes into one and renames it only when complete). Called when a worker takes the run: no other worker can be
 * writing there any more, and a late writer's rename would fail harmlessly. Returns the names removed.
 */
export async function removePartialCheckpoints(parent: string): Promise<string[]> {
  const names = await fs.readdir(parent).catch(() => [] as string[]);
  const partial = names.filter((n) => /^\.checkpoint-\d+\.tmp-/.test(n));
  for (const n of partial) await fs.rm(path.join(parent, n), { recursive: true, force: true });
  return partial;
}
