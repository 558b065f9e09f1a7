/**
 * A checkpoint saved from a Hugging Face folder is the model that was loaded, trained weights aside (issue #43): the
 * folder's config.json unchanged (its max_position_embeddings, not the run's context; its bos / eos ids), each weight
 * in its dtype (bf16 stays bf16, rounded to nearest even), the tokenizer and generation files copied byte for byte,
 * and logits that PyTorch's reference (scripts/parity/decoder_logits_parity.py) computes from the saved files.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as tf from "@tensorflow/tfjs";
import { loadHfCheckpoint } from "./hf-load";
import { loadCheckpoint, MASTER_WEIGHTS, saveCheckpoint } from "./checkpoint";
import { bf16Bits, decodeSafetensors, f16Bits, readSafetensorsDtypes } from "./safetensors";
import { AdamW } from "../policy/optimizer";
import { padBatch, tokenLogProbs } from "../policy/logprobs";
import type { DecoderLM } from "../policy/model";

await tf.setBackend("cpu");

const FIXTURES = path.join(import.meta.dirname, "../../tests/fixtures/parity/decoders");
const reference = JSON.parse(readFileSync(path.join(FIXTURES, "logits.json"), "utf8")) as {
  prompts: number[][];
  logits: Record<string, number[][][]>;
};
const SCRIPT = path.join(import.meta.dirname, "../../scripts/parity/decoder_logits_parity.py");
const state = { step: 1, rngState: 1, dataCursor: 0 };

/** The bf16 fixture as a served model folder: a config with the keys a real one has, tokenizer and generation files. */
function sourceFolder(root: string): string {
  const dir = path.join(root, "source");
  cpSync(path.join(FIXTURES, "qwen3-bf16-tied"), dir, { recursive: true });
  const config = JSON.parse(readFileSync(path.join(dir, "config.json"), "utf8"));
  const served = { ...config, bos_token_id: 94, eos_token_id: 95, use_cache: true, transformers_version: "4.51.0" };
  writeFileSync(path.join(dir, "config.json"), JSON.stringify(served, null, 1));
  writeFileSync(path.join(dir, "generation_config.json"), JSON.stringify({ bos_token_id: 94, eos_token_id: [95, 93], temperature: 0.6 }));
  writeFileSync(path.join(dir, "tokenizer_config.json"), JSON.stringify({ eos_token: "<|im_end|>", chat_template: "{{ messages }}" }));
  writeFileSync(path.join(dir, "tokenizer.json"), '{"version": "1.0", "model": {"type": "BPE"}}');
  writeFileSync(path.join(dir, "special_tokens_map.json"), '{"eos_token": "<|im_end|>"}');
  writeFileSync(path.join(dir, "tokenizer.model"), Buffer.from([0x0a, 0xff, 0x00, 0xfe, 0x80])); // binary: copied as bytes
  return dir;
}

const logitsOf = (model: DecoderLM) =>
  reference.prompts.map((ids) => tf.tidy(() => model.forward(Int32Array.from(ids), 1, ids.length).logits.arraySync() as number[][]));
const worstDiff = (a: number[][][], b: number[][][]) =>
  Math.max(...a.flatMap((p, i) => p.flatMap((row, t) => row.map((x, v) => Math.abs(x - b[i][t][v])))));

test("a checkpoint of a bf16 Hugging Face folder keeps its config.json, its dtype and its tokenizer files, and computes the same logits", async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "ckpt43-save-"));
  try {
    const source = sourceFolder(root);
    // as a run loads it: at a context shorter than the folder's 64 positions
    const { model } = await loadHfCheckpoint(source, { trainable: true, configure: (c) => ({ ...c, maxPositions: 32 }) });
    const saved = await saveCheckpoint(path.join(root, "checkpoint-000001"), { model, state, tokenizerFolder: source, source });
    for (const file of [
      "config.json",
      "generation_config.json",
      "tokenizer.json",
      "tokenizer_config.json",
      "special_tokens_map.json",
      "tokenizer.model",
    ])
      assert.deepEqual(readFileSync(path.join(saved, file)), readFileSync(path.join(source, file)), `${file} as it was`);
    const config = JSON.parse(readFileSync(path.join(saved, "config.json"), "utf8"));
    assert.equal(config.max_position_embeddings, 64);
    assert.equal(config.eos_token_id, 95);
    assert.deepEqual(new Set((await readSafetensorsDtypes(path.join(saved, "model.safetensors"))).values()), new Set(["BF16"]));
    assert.ok(
      statSync(path.join(saved, "model.safetensors")).size <= statSync(path.join(source, "model.safetensors")).size + 64,
      "two bytes a weight, as the folder it came from",
    );
    // untrained bf16 weights are exact in bf16: no float32 copy needed, and the saved folder computes the reference logits
    assert.throws(() => statSync(path.join(saved, MASTER_WEIGHTS)));
    const again = await loadHfCheckpoint(saved, { trainable: false });
    assert.ok(worstDiff(logitsOf(again.model), reference.logits["qwen3-bf16-tied"]) < 1e-4);
    again.model.dispose();
    model.dispose();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("trained weights are saved rounded to bf16 (nearest even) with float32 masters beside them, so a resume continues exactly; PyTorch reads the saved folder", async (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), "ckpt43-save-"));
  try {
    const source = sourceFolder(root);
    const { model } = await loadHfCheckpoint(source, { trainable: true });
    const optimizer = new AdamW(model.trainableVariables(), { lr: 1e-3 });
    // one step's worth of change, below bf16's resolution for most weights
    const { grads } = tf.variableGrads(() => tf.neg(tf.sum(tokenLogProbs(model, padBatch([reference.prompts[0]])).logp)) as tf.Scalar);
    optimizer.apply(grads, 1);
    tf.dispose(Object.values(grads));
    const saved = await saveCheckpoint(path.join(root, "checkpoint-000001"), { model, optimizer, state, tokenizerFolder: source, source });
    const file = decodeSafetensors(readFileSync(path.join(saved, "model.safetensors")));
    const embedding = model.p("model.embed_tokens.weight").dataSync() as Float32Array;
    const stored = file.tensors.get("model.embed_tokens.weight")!.data as Float32Array;
    const storedBits = new Uint32Array(stored.buffer, stored.byteOffset, stored.length);
    embedding.forEach((x, i) => assert.equal(storedBits[i] >>> 16, bf16Bits(x), `embedding value ${i} rounded to nearest even`));
    assert.ok(
      embedding.some((x, i) => x !== stored[i]),
      "the step moved weights off the bf16 grid",
    );

    const resumed = (await loadHfCheckpoint(source, { trainable: true })).model;
    await loadCheckpoint(saved, resumed, new AdamW(resumed.trainableVariables(), { lr: 1e-3 }));
    for (const [name, v] of model.params)
      assert.deepEqual(resumed.params.get(name)!.dataSync(), v.dataSync(), `${name}: the float32 value trained, not its bf16 rounding`);

    const mine = logitsOf((await loadHfCheckpoint(saved, { trainable: false })).model);
    const torch = spawnSync("/usr/bin/python3", [SCRIPT, "--logits", saved], { encoding: "utf8" });
    if (torch.status !== 0 && /No module named 'torch'/.test(torch.stderr)) {
      t.skip("Debian's python3-torch is not installed: the PyTorch reading of the saved folder was not checked");
    } else {
      assert.equal(torch.status, 0, torch.stderr);
      const theirs = JSON.parse(torch.stdout) as { dtypes: string[]; logits: number[][][] };
      assert.deepEqual(theirs.dtypes, ["BF16"]);
      const worst = worstDiff(mine, theirs.logits);
      t.diagnostic(
        `max |logit difference| to PyTorch ${torch.stdout.length ? worst.toExponential(2) : "?"} (torch ${JSON.parse(torch.stdout).torch})`,
      );
      assert.ok(worst < 1e-4, `max |logit difference| to PyTorch ${worst}`);
    }
    resumed.dispose();
    model.dispose();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("float32 -> bf16 / f16 rounding is to nearest, ties to even, as torch's .to() rounds", () => {
  assert.equal(bf16Bits(1 + 2 ** -8), 0x3f80, "a tie rounds to the even 1.0");
  assert.equal(bf16Bits(1 + 3 * 2 ** -8), 0x3f82, "a tie rounds up to the even neighbour");
  assert.equal(bf16Bits(-2), 0xc000);
  assert.equal(f16Bits(1 / 3), 0x3555);
  assert.equal(f16Bits(65520), 0x7c00, "past the largest half: infinity");
  assert.equal(f16Bits(2 ** -24), 0x0001, "the smallest subnormal");
  assert.equal(f16Bits(1 + 2 ** -11), 0x3c00, "a tie rounds to the even 1.0");
  assert.equal(f16Bits(-0.5), 0xb800);
});
