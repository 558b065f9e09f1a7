import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import * as tf from "@tensorflow/tfjs";
import { parseRunConfig } from "../../../lib/run-config";
import { saveCheckpoint } from "../../checkpoint/checkpoint";
import { HF_DEFAULT_CONTEXT, loadPolicy, policyChatFormat, policyModelConfig } from "./load-policy";
import { unlinkSync } from "node:fs";
import { QWEN25_SMALL_CONFIG, writeRandomHfFolder } from "../../checkpoint/random-folder";

test("a run can start from a checkpoint folder Rollout Lab saved (HF layout), with the same weights", async () => {
  await tf.setBackend("cpu");
  const dir = mkdtempSync(path.join(tmpdir(), "rl-policy-"));
  try {
    const first = await loadPolicy(parseRunConfig({ seed: 3 }));
    await saveCheckpoint(path.join(dir, "ckpt"), { model: first.model, state: { step: 1, rngState: 1, dataCursor: 0 } });
    const again = await loadPolicy(parseRunConfig({ policy: { model: path.join(dir, "ckpt") } }));
    assert.equal(again.chat.tokenizer.vocabSize, first.chat.tokenizer.vocabSize);
    for (const [name, v] of first.model.params) {
      const w = again.model.params.get(name);
      assert.ok(w, `${name} loaded`);
      assert.deepEqual(Array.from(w.dataSync()), Array.from(v.dataSync()), `${name} equal`);
    }
    first.model.dispose();
    again.model.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a Hugging Face folder trains at policy.contextLength, else at most 4,096 of its declared positions", async () => {
  await tf.setBackend("cpu");
  const dir = mkdtempSync(path.join(tmpdir(), "rl-policy-"));
  try {
    // a folder declaring Qwen2.5's 32,768 positions (a built-in size saved with that context)
    const long = await loadPolicy(parseRunConfig({ seed: 3, policy: { model: "tiny", contextLength: 32_768 } }));
    await saveCheckpoint(path.join(dir, "ckpt"), { model: long.model, state: { step: 1, rngState: 1, dataCursor: 0 } });
    long.model.dispose();
    const folder = path.join(dir, "ckpt");
    const byDefault = await loadPolicy(parseRunConfig({ policy: { model: folder } }));
    assert.equal(byDefault.model.config.maxPositions, HF_DEFAULT_CONTEXT);
    assert.equal((await policyModelConfig(parseRunConfig({ policy: { model: folder } }))).maxPositions, HF_DEFAULT_CONTEXT);
    const chosen = await loadPolicy(parseRunConfig({ policy: { model: folder, contextLength: 512 } }));
    assert.equal(chosen.model.config.maxPositions, 512, "the placement estimate and the model agree on the context");
    assert.equal((await policyModelConfig(parseRunConfig({ policy: { model: folder, contextLength: 512 } }))).maxPositions, 512);
    byDefault.model.dispose();
    chosen.model.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("LoRA trains only the adapters; a folder that is not a model is a clear error", async () => {
  await tf.setBackend("cpu");
  const { model } = await loadPolicy(parseRunConfig({ policy: { lora: { rank: 4, alpha: 8 } } }));
  const trainable = model.trainableVariables();
  assert.ok(trainable.length > 0 && trainable.length < model.params.size, `${trainable.length} adapter variables`);
  model.dispose();
  await assert.rejects(loadPolicy(parseRunConfig({ policy: { model: tmpdir() } })), /no config\.json/);
});

test("a Hugging Face folder without tokenizer.json is refused before its weights are read, naming the file (not trained on the byte tokenizer)", async () => {
  await tf.setBackend("cpu");
  const dir = mkdtempSync(path.join(tmpdir(), "rl-policy-"));
  try {
    const folder = writeRandomHfFolder(path.join(dir, "qwen"), QWEN25_SMALL_CONFIG);
    unlinkSync(path.join(folder, "tokenizer.json"));
    const config = parseRunConfig({ policy: { model: folder } });
    const named = /has no tokenizer\.json \(its config\.json declares vocab_size 151936\).*259-token byte tokenizer/;
    await assert.rejects(policyChatFormat(config), named);
    await assert.rejects(loadPolicy(config), named);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
