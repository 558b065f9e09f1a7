import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ConversationMessage } from "../../../lib/conversation";
import { parseRunConfig } from "../../../lib/run-config";
import { getEnvironment } from "../../envs/registry";
import type { Demonstration, Environment, EpisodeContext, LlmChat, Task } from "../../envs/types";
import { ByteTokenizer } from "../../policy/tokenizer/byte";
import { builtinChatFormat } from "../../policy/chat/load-chat-format";
import { createSftWarmStart, loadDemonstrations, tokeniseDemonstrations, tokeniseDemonstrationsYielding } from "./sft-warm-start";
import { DecoderLM } from "../../policy/model";
import { PRESETS } from "../../policy/config";
import { AdamW } from "../../policy/optimizer";
import { describeWarmup, type WarmupProgress } from "../../../lib/warmup-progress";
import { sharedData } from "../../../tests/fixtures/shared-data";

const tok = new ByteTokenizer();
const chat = builtinChatFormat(tok);
const SGD_TRAIN = sharedData("data/sgd/train").dir;
const offline: LlmChat = { chat: async (req) => ({ text: req.offline ? await req.offline() : "", callId: "offline" }) };
const ctx = (): EpisodeContext => ({ seed: 1, llm: offline, maxTurns: 100 });

/** Plays a demonstration's assistant messages through a real episode of its task. */
async function replay(env: Environment, task: Task, demo: Demonstration) {
  const ep = env.createEpisode(task, ctx());
  const seen: ConversationMessage[] = await ep.reset();
  let turn = 0;
  for (const m of demo.messages.filter((x) => x.role === "assistant")) {
    const r = await ep.step(m.content, turn++);
    seen.push(...r.observations);
    if (r.done) break;
  }
  return { seen, evaluation: await ep.evaluate("agent_finished") };
}

/** The text of the trained tokens (assistant content and its end-of-turn marker). */
const trainedText = (tokens: number[], mask: number[]) => tok.decode(tokens.filter((_, i) => mask[i] === 1));

test("guess-number: binary-search demonstrations are what an episode shows, solve every task and train only the guesses", async () => {
  const env = getEnvironment("guess-number");
  const tasks = env.builtinTasks();
  const demos = await env.demonstrations!(tasks);
  assert.equal(demos.length, tasks.length);
  for (const [i, demo] of demos.entries()) {
    const { seen, evaluation } = await replay(env, tasks[i], demo);
    assert.deepEqual(
      seen.map((m) => m.content),
      demo.messages.filter((m) => m.role === "user").map((m) => m.content),
      "same feedback as the environment gives",
    );
    assert.equal(evaluation.components.solved, 1);
    assert.ok(evaluation.components.turns <= 4, "binary search solves 1-8 in at most 4 guesses");
  }
  const { examples, truncated } = tokeniseDemonstrations(chat, demos, 512);
  assert.equal(truncated, 0);
  const ex = examples[tasks.findIndex((t) => (t.data as { secret: number }).secret === 7)];
  assert.ok(ex.lossMask.some((m) => m === 1));
  assert.equal(trainedText(ex.tokens, ex.lossMask), "4<|im_end|>6<|im_end|>7<|im_end|>", "only the policy's guesses are trained");
});

test("sgd: the real dialogues' SYSTEM side becomes assistant turns whose service calls the episode answers", async () => {
  const env = getEnvironment("sgd");
  const tasks = (await env.loadTasks!(SGD_TRAIN)).slice(0, 20);
  const demos = await env.demonstrations!(tasks);
  assert.equal(demos.length, tasks.length, "every corpus task has its dialogue");
  const d = demos.find((x) => x.taskId === "sgd-1_00000")!;
  assert.equal(d.messages[0].role, "system");
  assert.match(d.messages[1].content, /./, "opens with the real user's utterance");
  const call = d.messages.find((m) => m.role === "assistant" && m.content.includes("<tool_call>"))!;
  assert.match(call.content, /"name":"FindRestaurants"/);
  const task = tasks.find((t) => t.id === "sgd-1_00000")!;
  const ep = env.createEpisode(task, ctx());
  await ep.reset();
  const r = await ep.step(call.content, 0);
  assert.equal(r.observations[0].role, "tool");
  assert.ok((JSON.parse(r.observations[0].content) as { count: number }).count > 0, "the recorded call is answered from its recording");
  const { examples } = tokeniseDemonstrations(chat, demos, 100_000);
  assert.equal(examples.length, demos.length);
  const text = trainedText(examples[0].tokens, examples[0].lossMask);
  assert.ok(text.length > 0 && !text.includes("You are a virtual assistant"), "system prompt and user turns are context, not trained");
});

test("bfcl: replaying the ground-truth demonstrations through the episode earns full reward", async () => {
  const env = getEnvironment("bfcl");
  const tasks = env.builtinTasks();
  const demos = await env.demonstrations!(tasks);
  assert.equal(demos.length, tasks.length);
  for (const [i, demo] of demos.entries()) {
    const { evaluation } = await replay(env, tasks[i], demo);
    assert.equal(evaluation.reward, 1, `${tasks[i].id}: ${evaluation.reasoning}`);
  }
});

test("tokenising keeps the end of a demonstration longer than the context and drops one with no assistant token left", () => {
  const long: Demonstration = {
    messages: [
      { role: "user", content: "x".repeat(300) },
      { role: "assistant", content: "42" },
    ],
  };
  const earlyOnly: Demonstration = {
    messages: [
      { role: "assistant", content: "hi" },
      { role: "user", content: "y".repeat(300) },
    ],
  };
  const { examples, truncated } = tokeniseDemonstrations(chat, [long, earlyOnly], 64);
  assert.equal(truncated, 2);
  assert.equal(examples.length, 1);
  assert.equal(examples[0].tokens.length, 64);
  assert.equal(trainedText(examples[0].tokens, examples[0].lossMask), "42<|im_end|>");
});

test("the demonstrations file wins over the environment; without either the run fails saying what to do", async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "rl-sft-")), "demos.jsonl");
  writeFileSync(
    file,
    `${JSON.stringify({
      messages: [
        { role: "user", content: "Guess 1-8" },
        { role: "assistant", content: "4" },
      ],
    })}\n`,
  );
  const guess = getEnvironment("guess-number");
  const fromFile = await loadDemonstrations(
    parseRunConfig({ environment: "guess-number", dataset: { demonstrationsPath: file }, grpo: { sftWarmupSteps: 2 } }),
    guess,
    guess.builtinTasks(),
  );
  assert.equal(fromFile.demos.length, 1);
  assert.equal(fromFile.source, file);

  const fromEnv = await loadDemonstrations(
    parseRunConfig({ environment: "guess-number", grpo: { sftWarmupSteps: 2 } }),
    guess,
    guess.builtinTasks(),
  );
  assert.equal(fromEnv.source, 'environment "guess-number"');
  assert.equal(fromEnv.demos.length, guess.builtinTasks().length, "one scripted demonstration per training task");

  const config = parseRunConfig({ environment: "guess-number", grpo: { sftWarmupSteps: 2 } });
  await assert.rejects(
    loadDemonstrations(config, { ...guess, demonstrations: async () => [] }, guess.builtinTasks()),
    /no demonstrations: environment "guess-number" has no gold trajectories for its \d+ training tasks\. Set dataset\.demonstrationsPath to a JSONL file .* or set grpo\.sftWarmupSteps to 0\./,
  );
  await assert.rejects(
    loadDemonstrations(config, { ...guess, demonstrations: undefined }, guess.builtinTasks()),
    /environment "guess-number" cannot provide gold trajectories/,
  );
});

test("the warm-up reports its steps, every loss and an ETA as it goes, and yields to the event loop while tokenising", async () => {
  const env = getEnvironment("guess-number");
  const trainTasks = env.builtinTasks();
  const model = new DecoderLM(PRESETS.micro, { seed: 5 });
  const optimizer = new AdamW(model.trainableVariables(), { lr: 1e-3 });
  const config = parseRunConfig({ environment: "guess-number", grpo: { sftWarmupSteps: 6, minibatchSize: 2, microBatchSize: 2 } });
  const warmStart = createSftWarmStart({
    config,
    env,
    trainTasks,
    model,
    optimizer,
    chat,
    checkpointDir: mkdtempSync(path.join(tmpdir(), "sft-")),
  });
  const reports: WarmupProgress[] = [];
  const controller = new AbortController();
  const report = await warmStart({ reason: () => null, signal: controller.signal }, async (p) => {
    reports.push(p);
  });
  assert.deepEqual(
    reports.slice(0, 2).map((p) => [p.done, p.etaSeconds === null, p.finished]),
    [
      [0, true, false],
      [1, false, false],
    ],
    "before the first step (no ETA yet), then after it",
  );
  const last = reports[reports.length - 1];
  assert.equal(last.finished, true);
  assert.equal(last.done, 6);
  assert.equal(last.steps, 6);
  assert.equal(last.losses.length, 6);
  assert.ok(last.losses.every((l) => l !== null && Number.isFinite(l) && l > 0));
  assert.equal(last.etaSeconds, 0);
  assert.deepEqual(last.losses[5], report.metrics["sft/loss_last"]);
  assert.match(describeWarmup(last), /^SFT warm-up: 6 of 6 steps done in \d+ (s|min), loss \d\.\d{3} → \d\.\d{3}\.$/);
  assert.match(describeWarmup(reports[1]), /^SFT warm-up: step 1 of 6, loss \d\.\d{3}, about \d+ (s|min) left\.$/);
});

test("tokenising the demonstrations lets other work run between them (a worker's queue transactions and lease)", async () => {
  const env = getEnvironment("guess-number");
  const demos = await env.demonstrations!(env.builtinTasks());
  let ranDuring = -1;
  let tokenised = 0;
  const counting: typeof chat = Object.create(chat);
  counting.encode = (text: string) => (tokenised++, chat.encode(text));
  setImmediate(() => (ranDuring = tokenised));
  const { examples } = await tokeniseDemonstrationsYielding(counting, demos, 512);
  assert.equal(examples.length, demos.length);
  assert.ok(ranDuring >= 0 && ranDuring < tokenised, `a callback queued before tokenising ran after ${ranDuring} of ${tokenised} encodes`);
});
