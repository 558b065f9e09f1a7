/**
 * Moving weights between a DecoderLM (TF.js layout, see policy/params.ts) and safetensors tensors in the
 * transformers layout: projection matrices are transposed on the way out and back in.
 */
import * as tf from "@tensorflow/tfjs";
import type { DecoderLM } from "../policy/model";
import type { SafeDtype, SafeTensor } from "./safetensors";
import { HfCheckpointError } from "./hf-config";

function transposed(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c];
  return out;
}

/** TF.js variable data -> file tensor (HF layout). `rank2Transposed` says whether the variable is [in, out]. */
export function toFileTensor(v: tf.Tensor, rank2Transposed: boolean): SafeTensor {
  const data = v.dataSync() as Float32Array;
  if (rank2Transposed && v.rank === 2) {
    const [a, b] = v.shape as [number, number];
    return { dtype: "F32", shape: [b, a], data: transposed(data, a, b) };
  }
  return { dtype: "F32", shape: [...v.shape], data: new Float32Array(data) };
}

/** File tensor (HF layout) -> a tensor of `shape` (TF.js layout), checking the shape. The caller disposes it. */
function tensorFromFile(shape: number[], name: string, t: SafeTensor, rank2Transposed: boolean): tf.Tensor {
  const expected = rank2Transposed && shape.length === 2 ? [shape[1], shape[0]] : [...shape];
  if (t.shape.length !== expected.length || t.shape.some((d, i) => d !== expected[i])) {
    throw new HfCheckpointError(`tensor ${name} has shape [${t.shape}] in the checkpoint but the model expects [${expected}]`);
  }
  const data = t.data instanceof Float32Array ? t.data : Float32Array.from(t.data);
  const value = rank2Transposed && shape.length === 2 ? transposed(data, expected[0] as number, expected[1] as number) : data;
  return tf.tensor(value, shape);
}

/** File tensor (HF layout) -> assigns into `v`, checking the shape. */
export function assignFromFile(v: tf.Variable, name: string, t: SafeTensor, rank2Transposed: boolean): void {
  const tensor = tensorFromFile(v.shape, name, t, rank2Transposed);
  v.assign(tensor);
  tensor.dispose();
}

/**
 * Every weight as a file tensor: float32 values (bfloat16-stored ones widened one at a time), labelled with the dtype
 * `dtypes` gives it (the folder it was loaded from; float32 when absent), which encodeSafetensors rounds to.
 */
export function modelTensors(model: DecoderLM, dtypes: Map<string, SafeDtype> = new Map()): Map<string, SafeTensor> {
  const out = new Map<string, SafeTensor>();
  const labelled = (name: string, t: SafeTensor): SafeTensor => {
    const dtype = dtypes.get(name);
    return dtype === "BF16" || dtype === "F16" ? { ...t, dtype } : t;
  };
  for (const s of model.specs) {
    if (!model.bf16Weight(s.name)) {
      out.set(s.name, labelled(s.name, toFileTensor(model.p(s.name), s.transposed)));
      continue;
    }
    const value = model.weightCopy(s.name);
    out.set(s.name, labelled(s.name, toFileTensor(value, s.transposed)));
    value.dispose();
  }
  return out;
}

export function loraTensors(model: DecoderLM): Map<string, SafeTensor> {
  const out = new Map<string, SafeTensor>();
  for (const [name, v] of model.lora?.namedVariables() ?? []) out.set(name, toFileTensor(v, true));
  return out;
}

/** Loads every model parameter from `tensors`; missing tensors or wrong shapes fail naming the tensor. */
export function loadModelTensors(model: DecoderLM, tensors: Map<string, SafeTensor>, source: string): void {
  for (const s of model.specs) {
    const t = tensors.get(s.name);
    if (!t) throw new HfCheckpointError(`${source} has no tensor ${s.name} (needed by the ${model.config.numLayers}-layer config)`);
    if (!model.bf16Weight(s.name)) {
      assignFromFile(model.p(s.name), s.name, t, s.transposed);
      continue;
    }
    const value = tensorFromFile(s.shape, s.name, t, s.transposed);
    model.setWeight(s.name, value);
    value.dispose();
  }
}

export function loadLoraTensors(model: DecoderLM, tensors: Map<string, SafeTensor>, source: string): void {
  for (const [name, v] of model.lora?.namedVariables() ?? []) {
    const t = tensors.get(name);
    if (!t) throw new HfCheckpointError(`${source} has no LoRA tensor ${name}`);
    assignFromFile(v, name, t, true);
  }
}
