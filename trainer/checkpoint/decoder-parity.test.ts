/**
 * Qwen3 and Llama 3.1's scaled rotary positions checked the independent way (issue #28): two Qwen3-config
 * safetensors folders (untied float32, tied bfloat16; head_dim 16 where hidden / heads is 12) and a Llama folder with
 * rope_scaling "llama3", with the logits of a PyTorch re-implementation written from transformers' modeling files
 * (scripts/parity/decoder_logits_parity.py, tests/fixtures/parity/decoders). Each folder loads through the
 * production path, its logits match within float tolerance with the same argmax at every position, and KV-cache
 * sampling, prefix reuse and full recomputation agree.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import * as tf from "@tensorflow/tfjs";
import { loadHfCheckpoint } from "./hf-load";
import { hfConfigFromModel } from "./hf-config";
import { generate } from "../policy/sampling";
import { computeLogProbs } from "../policy/logprobs";
import { Rng } from "../policy/rng";
import { assertPrefixReuseExact } from "../policy/testing/prefix-reuse";

await tf.setBackend("cpu");

const DIR = path.join(import.meta.dirname, "../../tests/fixtures/parity/decoders");
const reference = JSON.parse(readFileSync(path.join(DIR, "logits.json"), "utf8")) as {
  prompts: number[][];
  logits: Record<string, number[][][]>;
};
const argmax = (row: ArrayLike<number>) => Array.prototype.indexOf.call(row, Math.max(...Array.from(row)));

for (const folder of ["qwen3-f32", "qwen3-bf16-tied", "llama3-rope-scaled"]) {
  test(`${folder}: logits equal PyTorch's (from transformers' modeling files) within 1e-4, argmax everywhere`, async () => {
    const { model, config } = await loadHfCheckpoint(path.join(DIR, folder), { trainable: false });
    const written = hfConfigFromModel(config);
    if (folder.startsWith("qwen3")) {
      assert.equal(config.headDim, 16);
      assert.equal(config.qkNorm, true);
      assert.equal(written.model_type, "qwen3", "a checkpoint Rollout Lab saves stays a Qwen3 folder");
    } else {
      assert.equal(config.ropeScaling?.factor, 4);
      assert.equal((written.rope_scaling as { rope_type: string }).rope_type, "llama3", "and keeps its rotary scaling");
    }
    let worst = 0;
    reference.prompts.forEach((ids, p) => {
      const logits = tf.tidy(() => model.forward(Int32Array.from(ids), 1, ids.length).logits.arraySync());
      logits.forEach((row, t) => {
        const expected = reference.logits[folder][p][t];
        row.forEach((x, v) => (worst = Math.max(worst, Math.abs(x - expected[v]))));
        assert.equal(argmax(row), argmax(expected), `prompt ${p} position ${t}: argmax`);
      });
    });
    assert.ok(worst < 1e-4, `max |logit difference| ${worst}`);

    // sampling with the KV cache gives the log-probs a full forward pass gives
    const samples = generate(model, reference.prompts, { maxNewTokens: 10, temperature: 1, rng: new Rng(2) });
    const full = computeLogProbs(
      model,
      reference.prompts.map((p, i) => [...p, ...samples[i].tokens]),
    );
    samples.forEach((s, i) =>
      s.logprobs.forEach((lp, t) => assert.ok(Math.abs(lp - full[i][reference.prompts[i].length + t]) < 5e-5, `row ${i} token ${t}`)),
    );
    assertPrefixReuseExact(model);
    model.dispose();
  });
}
