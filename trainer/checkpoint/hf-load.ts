/**
 * Loads a local Hugging Face checkpoint folder (config.json, model.safetensors or sharded
 * model-0000x-of-0000y.safetensors + model.safetensors.index.json) of a Llama / Qwen2 / Qwen3 / Mistral
 * architecture into a DecoderLM. Its tokenizer and chat template are read by policy/chat/load-chat-format.ts.
 * Nothing is downloaded: the folder must exist locally.
 */
import { promises as fs } from "node:fs";
import { readDataJson } from "../data-roots";
import path from "node:path";
import { DecoderLM } from "../policy/model";
import type { ModelConfig } from "../policy/config";
import { HfCheckpointError, modelConfigFromHf } from "./hf-config";
import { readSafetensors, readSafetensorsDtypes, type SafeDtype, type SafeTensor } from "./safetensors";
import { loadModelTensors } from "./weights";

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/** Every tensor of the folder's weights, reading the shards listed by the index when sharded. */
export async function readHfWeights(dir: string): Promise<Map<string, SafeTensor>> {
  const single = path.join(dir, "model.safetensors");
  if (await exists(single)) return (await readSafetensors(single)).tensors;
  const indexFile = path.join(dir, "model.safetensors.index.json");
  if (!(await exists(indexFile))) {
    throw new HfCheckpointError(
      `${dir} has neither model.safetensors nor model.safetensors.index.json (PyTorch .bin weights are not supported; convert to safetensors).`,
    );
  }
  const index = await readDataJson<{ weight_map?: Record<string, string> }>(indexFile);
  if (!index.weight_map) throw new HfCheckpointError(`${indexFile} has no weight_map`);
  const out = new Map<string, SafeTensor>();
  for (const shard of new Set(Object.values(index.weight_map))) {
    for (const [name, t] of (await readSafetensors(path.join(dir, shard))).tensors) out.set(name, t);
  }
  for (const name of Object.keys(index.weight_map)) {
    if (!out.has(name)) throw new HfCheckpointError(`${indexFile} maps ${name} to ${index.weight_map[name]}, which does not contain it`);
  }
  return out;
}

/** The dtype each weight of the folder is stored in (headers only), so a checkpoint saved from it keeps them. */
export async function readHfDtypes(dir: string): Promise<Map<string, SafeDtype>> {
  const single = path.join(dir, "model.safetensors");
  if (await exists(single)) return readSafetensorsDtypes(single);
  const indexFile = path.join(dir, "model.safetensors.index.json");
  const index = await readDataJson<{ weight_map?: Record<string, string> }>(indexFile);
  const out = new Map<string, SafeDtype>();
  for (const shard of new Set(Object.values(index.weight_map ?? {})))
    for (const [name, dtype] of await readSafetensorsDtypes(path.join(dir, shard))) out.set(name, dtype);
  return out;
}

export interface LoadedHfModel {
  model: DecoderLM;
  config: ModelConfig;
}

export async function loadHfCheckpoint(
  dir: string,
  opts: {
    trainable?: boolean;
    /** Adjusts the folder's config before the model is built (e.g. its context). */ configure?: (c: ModelConfig) => ModelConfig;
  } = {},
): Promise<LoadedHfModel> {
  const cfgFile = path.join(dir, "config.json");
  if (!(await exists(cfgFile))) throw new HfCheckpointError(`${dir} has no config.json; is it a Hugging Face model folder?`);
  const folderConfig = modelConfigFromHf(await readDataJson(cfgFile));
  const config = opts.configure ? opts.configure(folderConfig) : folderConfig;
  const tensors = await readHfWeights(dir);
  const model = new DecoderLM(config, { trainable: opts.trainable ?? true, initStd: 0 });
  try {
    loadModelTensors(model, tensors, dir);
  } catch (e) {
    model.dispose();
    throw e;
  }
  return { model, config };
}
