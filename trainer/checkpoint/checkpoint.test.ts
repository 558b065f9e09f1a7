import { test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as tf from "@tensorflow/tfjs";
import { DecoderLM } from "../policy/model";
import { PRESETS } from "../policy/config";
import { AdamW } from "../policy/optimizer";
import { padBatch, tokenLogProbs } from "../policy/logprobs";
import { decodeSafetensors, encodeSafetensors } from "./safetensors";
import { IncompleteCheckpointError, latestCheckpoint, loadCheckpoint, removePartialCheckpoints, saveCheckpoint } from "./checkpoint";
import { loadHfCheckpoint } from "./hf-load";
import { hfConfigFromModel } from "./hf-config";
import { modelTensors } from "./weights";

await tf.setBackend("cpu");
const tmp = () => fs.mkdtemp(path.join(os.tmpdir(), "ckpt-"));
const logp = (m: DecoderLM) => tf.tidy(() => tokenLogProbs(m, padBatch([[3, 1, 4, 1, 5, 9, 2, 6]])).logp).arraySync()[0];

test("safetensors header follows the spec and bf16 / f16 data read back as float32", () => {
  const buf = encodeSafetensors(new Map([["w", { dtype: "F32", shape: [2, 2], data: new Float32Array([1, -2, 0.5, 3]) }]]), {
    format: "pt",
  });
  const n = Number(buf.readBigUInt64LE(0));
  assert.equal((8 + n) % 8, 0);
  const header = JSON.parse(buf.subarray(8, 8 + n).toString());
  assert.deepEqual(header.w, { dtype: "F32", shape: [2, 2], data_offsets: [0, 16] });
  assert.equal(header.__metadata__.format, "pt");
  // hand-built bf16 (1.0 = 0x3f80, -2.0 = 0xc000) and f16 (0.5 = 0x3800) file
  const json = JSON.stringify({
    a: { dtype: "BF16", shape: [2], data_offsets: [0, 4] },
    b: { dtype: "F16", shape: [1], data_offsets: [4, 6] },
  });
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  const data = Buffer.from([0x80, 0x3f, 0x00, 0xc0, 0x00, 0x38]);
  const { tensors } = decodeSafetensors(Buffer.concat([len, Buffer.from(json), data]));
  assert.deepEqual(Array.from(tensors.get("a")?.data ?? []), [1, -2]);
  assert.deepEqual(Array.from(tensors.get("b")?.data ?? []), [0.5]);
});

test("malformed safetensors headers are refused with the tensor named: prototype keys as dtypes, negative or crossed offsets, I64 values past 32 bits", () => {
  const file = (header: Record<string, unknown>, data: Buffer) => {
    const json = JSON.stringify(header);
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(json.length));
    return Buffer.concat([len, Buffer.from(json), data]);
  };
  const eight = Buffer.alloc(8);
  assert.throws(
    () => decodeSafetensors(file({ w: { dtype: "constructor", shape: [1], data_offsets: [0, 1] } }, eight), "x.safetensors"),
    /x\.safetensors.*tensor w has unsupported dtype constructor/,
  );
  assert.throws(
    () => decodeSafetensors(file({ w: { dtype: "U8", shape: [1], data_offsets: [-1, 0] } }, eight)),
    /tensor w: data_offsets \[-1, 0\] do not fit/,
  );
  assert.throws(
    () => decodeSafetensors(file({ w: { dtype: "U8", shape: [-2], data_offsets: [0, 2] } }, eight)),
    /tensor w: shape must be a list of non-negative integers/,
  );
  const big = Buffer.alloc(8);
  big.writeBigInt64LE(2n ** 40n);
  assert.throws(
    () => decodeSafetensors(file({ ids: { dtype: "I64", shape: [1], data_offsets: [0, 8] } }, big)),
    /tensor ids: I64 value 1099511627776 at index 0 does not fit in 32 bits/,
  );
  const ok = Buffer.alloc(8);
  ok.writeBigInt64LE(-5n);
  assert.deepEqual(
    Array.from(decodeSafetensors(file({ ids: { dtype: "I64", shape: [1], data_offsets: [0, 8] } }, ok)).tensors.get("ids")!.data),
    [-5],
  );
});

test("a saved checkpoint restores identical outputs, optimizer moments and trainer state", async () => {
  const dir = await tmp();
  const model = new DecoderLM(PRESETS.micro, { seed: 1 });
  const opt = new AdamW(model.trainableVariables(), { lr: 1e-2 });
  const { grads } = tf.variableGrads(() => tf.neg(tf.sum(tokenLogProbs(model, padBatch([[1, 2, 3]])).logp)) as tf.Scalar);
  opt.apply(grads, 1);
  tf.dispose(Object.values(grads));
  const ck = await saveCheckpoint(path.join(dir, "checkpoint-000001"), {
    model,
    optimizer: opt,
    state: { step: 1, rngState: 42, dataCursor: 7 },
  });
  for (const f of ["config.json", "model.safetensors", "optimizer.safetensors", "trainer_state.json", "COMPLETE"])
    await fs.access(path.join(ck, f));
  const other = new DecoderLM(PRESETS.micro, { seed: 99 });
  const opt2 = new AdamW(other.trainableVariables(), { lr: 1e-2 });
  const state = await loadCheckpoint(ck, other, opt2);
  assert.deepEqual([state.step, state.rngState, state.dataCursor, opt2.step], [1, 42, 7, 1]);
  assert.deepEqual(logp(other), logp(model));
  const name = model.p("model.layers.0.self_attn.q_proj.weight").name;
  const name2 = other.p("model.layers.0.self_attn.q_proj.weight").name;
  assert.deepEqual(Array.from(opt2.moments.get(name2)?.m.dataSync() ?? []), Array.from(opt.moments.get(name)?.m.dataSync() ?? []));
  // projection weights are stored in transformers' [out, in] layout
  const { tensors } = decodeSafetensors(await fs.readFile(path.join(ck, "model.safetensors")));
  assert.deepEqual(tensors.get("model.layers.0.mlp.up_proj.weight")?.shape, [PRESETS.micro.intermediateSize, PRESETS.micro.hiddenSize]);
  [model, other].forEach((m) => m.dispose());
  [opt, opt2].forEach((o) => o.dispose());
});

test("a half-written checkpoint is never used", async () => {
  const dir = await tmp();
  const model = new DecoderLM(PRESETS.micro, { seed: 1 });
  await saveCheckpoint(path.join(dir, "checkpoint-000002"), { model, state: { step: 2, rngState: 0, dataCursor: 0 } });
  await fs.mkdir(path.join(dir, "checkpoint-000003"));
  await fs.writeFile(path.join(dir, "checkpoint-000003", "model.safetensors"), "trunc");
  assert.equal(await latestCheckpoint(dir), path.join(dir, "checkpoint-000002"));
  await assert.rejects(loadCheckpoint(path.join(dir, "checkpoint-000003"), model), IncompleteCheckpointError);
  model.dispose();
});

async function writeHfFolder(dir: string, model: DecoderLM, sharded: boolean, qwen: boolean) {
  const cfg = hfConfigFromModel(model.config);
  await fs.writeFile(path.join(dir, "config.json"), JSON.stringify(cfg));
  const tensors = modelTensors(model);
  if (!sharded) return fs.writeFile(path.join(dir, "model.safetensors"), encodeSafetensors(tensors));
  const names = [...tensors.keys()];
  const half = Math.ceil(names.length / 2);
  const shards = [names.slice(0, half), names.slice(half)];
  const weightMap: Record<string, string> = {};
  for (const [i, part] of shards.entries()) {
    const file = `model-0000${i + 1}-of-00002.safetensors`;
    await fs.writeFile(path.join(dir, file), encodeSafetensors(new Map(part.map((n) => [n, tensors.get(n)!]))));
    for (const n of part) weightMap[n] = file;
  }
  assert.equal(cfg.model_type, qwen ? "qwen2" : "llama");
  await fs.writeFile(path.join(dir, "model.safetensors.index.json"), JSON.stringify({ metadata: {}, weight_map: weightMap }));
}

test("loads a sharded Qwen2-style folder (q/k/v biases, tied embeddings) with the same outputs", async () => {
  const dir = await tmp();
  const src = new DecoderLM({ ...PRESETS.micro, attentionBias: true, tieEmbeddings: true }, { seed: 5 });
  src.p("model.layers.0.self_attn.q_proj.bias").assign(tf.randomNormal([PRESETS.micro.hiddenSize], 0, 0.5, "float32", 1));
  await writeHfFolder(dir, src, true, true);
  const { model, config } = await loadHfCheckpoint(dir);
  assert.equal(config.tieEmbeddings, true);
  assert.equal(model.params.has("lm_head.weight"), false);
  assert.deepEqual(logp(model), logp(src));
  src.dispose();
  model.dispose();
});

test("a shape mismatch names the tensor and both shapes", async () => {
  const dir = await tmp();
  const src = new DecoderLM(PRESETS.micro, { seed: 5 });
  await writeHfFolder(dir, src, false, false);
  const cfg = JSON.parse(await fs.readFile(path.join(dir, "config.json"), "utf8"));
  await fs.writeFile(path.join(dir, "config.json"), JSON.stringify({ ...cfg, intermediate_size: 48 }));
  await assert.rejects(
    loadHfCheckpoint(dir),
    /model\.layers\.0\.mlp\.gate_proj\.weight has shape \[64,32\] in the checkpoint but the model expects \[48,32\]/,
  );
  await fs.writeFile(path.join(dir, "config.json"), JSON.stringify({ ...cfg, model_type: "gpt2" }));
  await assert.rejects(loadHfCheckpoint(dir), /model_type "gpt2" is not supported/);
  src.dispose();
});

test("partial .checkpoint-*.tmp-* folders left by a crash are removed; complete checkpoints are kept", async () => {
  const parent = await fs.mkdtemp(path.join(os.tmpdir(), "rl-partial-"));
  try {
    const model = new DecoderLM({ ...PRESETS.micro, vocabSize: 32 }, { seed: 1 });
    await saveCheckpoint(path.join(parent, "checkpoint-000002"), { model, state: { step: 2, dataCursor: 0, rngState: 2, seed: 0 } });
    model.dispose();
    await fs.mkdir(path.join(parent, ".checkpoint-000004.tmp-123-456"));
    await fs.writeFile(path.join(parent, ".checkpoint-000004.tmp-123-456", "model.safetensors"), "half");
    assert.deepEqual(await removePartialCheckpoints(parent), [".checkpoint-000004.tmp-123-456"]);
    assert.deepEqual((await fs.readdir(parent)).sort(), ["checkpoint-000002"]);
    assert.deepEqual(await removePartialCheckpoints(path.join(parent, "missing")), [], "no folder yet is fine");
  } finally {
    await fs.rm(parent, { recursive: true, force: true });
  }
});
