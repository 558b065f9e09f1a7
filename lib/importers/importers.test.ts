/**
 * The importers on fixtures in each system's on-disk format (tests/fixtures/import/README.md says how each was
 * built from the writer's code): samples, groups, rewards and components come through; broken records are named
 * by file and line and the rest is kept.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { trajectoryInput } from "../ingest";
import { importFilesWanted, runImporter } from "./index";
import { readImportFile } from "./read-file";
import { promptKey } from "./verl";

const dir = path.join(import.meta.dirname, "../../tests/fixtures/import");
const file = (p: string) => ({ path: p, text: readFileSync(path.join(dir, p), "utf8") });

test("verl rollout dumps: one sample per line, groups of rollout.n per prompt and step, numeric extras as components", () => {
  const files = readdirSync(path.join(dir, "verl-rollouts")).map((n) => ({
    path: n,
    text: readFileSync(path.join(dir, "verl-rollouts", n), "utf8"),
  }));
  const r = runImporter("verl", files, undefined, "verl run");
  assert.equal(r.run.source, "verl");
  assert.equal(r.run.name, "verl run");
  assert.equal(r.trajectories.length, 8, "4 samples in step 1 and 4 readable ones in step 2");
  assert.deepEqual(
    r.problems.map((p) => `${p.file}:${p.line}`),
    ["2.jsonl:3", "2.jsonl:6"],
  );
  assert.match(r.problems[1].message, /"score" must be a number/);
  const step1 = r.trajectories.filter((t) => t.step === 1);
  assert.equal(new Set(step1.map((t) => t.group)).size, 2, "two prompts → two groups of two");
  const first = step1[0];
  assert.equal(first.reward, 1);
  assert.deepEqual(first.rewardComponents, { acc: 1 });
  assert.deepEqual(first.task, { ground_truth: "72" }, "the group's task: what every sample of the prompt shares");
  assert.equal(first.reasoning, "pred: 72", "a text extra describes its own sample");
  assert.equal(first.conversation[1].role, "assistant");
  assert.deepEqual(r.steps, [
    { step: 1, metrics: { "reward/mean": 0.5, "reward/scored": 4 } },
    { step: 2, metrics: { "reward/mean": 0.75, "reward/scored": 4 } },
  ]);
  for (const t of r.trajectories) assert.ok(trajectoryInput.safeParse(t).success, "every sample is valid ingest input");
  assert.equal(promptKey("abc"), promptKey("abc"));
  assert.notEqual(promptKey("abc"), promptKey("abd"));
});

test("τ²-bench results: trials of a task form a group; reward breakdown, checks and the termination reason come through", () => {
  const r = runImporter("tau2", [file("tau2-results.json")], undefined, "tau2 run");
  assert.equal(r.run.environment, "tau2-retail");
  assert.equal(r.run.policyModel, "qwen2.5-7b-grpo");
  assert.equal(r.trajectories.length, 2);
  assert.deepEqual(r.problems, [{ file: "tau2-results.json", message: "simulations[2]: no messages" }]);
  const [ok, cut] = r.trajectories;
  assert.equal(ok.group, "0");
  assert.equal(cut.group, "0");
  assert.equal(ok.split, "eval");
  assert.deepEqual(ok.rewardComponents, { DB: 1, COMMUNICATE: 1 });
  assert.equal(cut.reward, 0);
  assert.equal(cut.endReason, "max_steps");
  assert.equal(
    ok.reasoning,
    "Reward basis: DB, COMMUNICATE. database matches the expected state. 1/1 expected actions taken (outside the reward basis: not counted).",
    "the basis is stated and a check outside it is not shown as if it counted",
  );
  const call = ok.conversation[2];
  assert.equal(call.toolCalls?.[0].name, "get_order_details");
  const result = ok.conversation[3];
  assert.equal(result.role, "tool");
  assert.equal(result.name, "get_order_details", "the tool message is named after the call it answers");
  assert.equal(result.turn, 2, "a tool result is the observation of the next policy turn");
  const config = r.run.config as { info: { user_info: Record<string, unknown> } };
  assert.deepEqual(
    Object.keys(config.info.user_info).sort(),
    ["implementation", "llm"],
    "only the user simulator's name is kept, not its arguments",
  );
});

test("Rollout Lab JSONL: each bad line is named with the field at fault; --name overrides the file's name", () => {
  const r = runImporter("jsonl", [file("rollout-lab.jsonl")], "renamed", "fallback");
  assert.equal(r.run.name, "renamed");
  assert.equal(r.run.source, "trl");
  assert.equal(r.steps.length, 2);
  assert.equal(r.trajectories.length, 2);
  assert.deepEqual(
    r.problems.map((p) => [p.line, p.message]),
    [
      [6, "rewardComponents.format: Invalid input: expected number, received string"],
      [7, '"type" must be "run", "step" or "trajectory" (got "metrics")'],
    ],
  );
  assert.equal(runImporter("jsonl", [file("rollout-lab.jsonl")], undefined, "fallback").run.name, "trl gsm8k");
});

test("Simia-RL training records: the episodes of one sample and round form a group; the judge's calls and reasoning come through", () => {
  const root = path.join(dir, "simia-training-record");
  const files = readdirSync(root, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".json"))
    .map((f) => ({ path: f.split(path.sep).join("/"), text: readFileSync(path.join(root, f), "utf8") }));
  const r = runImporter("simia", files, undefined, "simia run");
  assert.equal(r.run.source, "simia");
  assert.equal(r.trajectories.length, 4);
  assert.deepEqual(
    r.problems.map((p) => p.file),
    ["sample_9/env_4_ep0_20261120_100400_000000.json"],
  );
  assert.match(r.problems[0].message, /not valid JSON/);
  assert.deepEqual([...new Set(r.trajectories.map((t) => t.group))].sort(), ["sample-4", "sample-9"]);
  const first = r.trajectories[0];
  assert.equal(first.reward, 1);
  assert.equal(first.endReason, "user_done");
  assert.match(first.reasoning ?? "", /completed the booking change/);
  assert.deepEqual(
    first.conversation.map((m) => m.role),
    ["system", "user", "assistant", "user", "assistant", "user"],
  );
  assert.equal(first.conversation.at(-1)?.content, "Thanks! [TERMINATE]", "Simia's text as written");
  assert.deepEqual(
    first.llmCalls?.map((c) => c.role),
    ["user_simulator", "judge"],
  );
  assert.equal((first.task as { reference: unknown[] }).reference.length, 2, "the sample's reference conversation is kept");
  assert.equal(r.trajectories.find((t) => t.id.includes("env_3"))?.endReason, "max_turns");
  assert.ok(!JSON.stringify(r.run.config).includes("azure.com"), "the endpoint is not copied into the run config");
  for (const t of r.trajectories) assert.ok(trajectoryInput.safeParse(t).success, "valid ingest input");
});

test("TRL output_dir: the furthest checkpoint's trainer_state.json gives the curves, under Rollout Lab's names where they exist", () => {
  const root = path.join(dir, "trl-output");
  const files = ["checkpoint-2/trainer_state.json", "checkpoint-4/trainer_state.json"].map((p) => ({
    path: p,
    text: readFileSync(path.join(root, p), "utf8"),
  }));
  const r = runImporter("trl", files, undefined, "trl run");
  assert.equal(r.run.source, "trl");
  assert.deepEqual(r.problems, []);
  assert.deepEqual(
    r.steps.map((s) => s.step),
    [0, 1, 2, 3],
    "all four steps, from checkpoint-4; Hugging Face's global step 1 is Rollout Lab's step 0",
  );
  const last = r.steps[3].metrics;
  assert.equal(last["reward/mean"], 0.44);
  assert.equal(last["reward/std"], 0.31);
  assert.equal(last.kl, 0.0034);
  assert.equal(last.entropy, 0.64);
  assert.equal(last["response/length_mean"], 184.5);
  assert.ok(Math.abs(last["reward/accuracy_reward"] - 0.352) < 1e-12, "a reward function's mean is a reward component curve");
  assert.equal(last.lr, 5e-7);
  assert.ok(!("epoch" in last) && !("step" in last));
  assert.equal(r.trajectories.length, 0, "no completions files given");
  assert.deepEqual((r.run.config as { summary: { train_runtime: number } }).summary.train_runtime, 512.3);
  const broken = runImporter("trl", [{ path: "trainer_state.json", text: '{"global_step": 1}' }], undefined, "x");
  assert.match(broken.problems[0].message, /no "log_history" list/);
});

const readFixture = (root: string, rel: string) =>
  readImportFile(rel, {
    text: async () => readFileSync(path.join(root, rel), "utf8"),
    arrayBuffer: async () => {
      const b = readFileSync(path.join(root, rel));
      return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
    },
  });

test("TRL completions Parquet (log_completions=True): each row a sample with its reward functions, advantage and group; a broken file is named", async () => {
  const root = path.join(dir, "trl-output");
  const wanted = importFilesWanted("trl");
  const rels = [
    "checkpoint-2/trainer_state.json",
    "checkpoint-4/trainer_state.json",
    ...[1, 2, 3, 4].map((s) => `completions/completions_0000${s}.parquet`),
  ];
  assert.ok(rels.every((p) => wanted.test(p)) && !wanted.test("checkpoint-4/model.safetensors"), "the folder's weights are never opened");
  const files = await Promise.all(rels.map((rel) => readFixture(root, rel)));
  const r = runImporter("trl", files, undefined, "trl run");
  assert.deepEqual(r.problems, []);
  assert.equal(r.trajectories.length, 16, "4 logging steps x 2 prompts x 2 generations");
  assert.deepEqual([...new Set(r.trajectories.map((t) => t.step))], [0, 1, 2, 3], "Parquet's INT64 steps arrive as numbers, 0-based");
  const step2 = r.trajectories.filter((t) => t.step === 1);
  assert.equal(new Set(step2.map((t) => t.group)).size, 2, "the completions of one prompt form a group");
  const right = step2.find((t) => t.conversation[t.conversation.length - 1].content.includes("<answer>42</answer>"))!;
  assert.deepEqual(right.rewardComponents, { accuracy_reward: 1, format_reward: 1 }, "the reward functions of the log history");
  assert.equal(right.reward, 2, "TRL's total with reward_weights 1");
  assert.ok(Math.abs((right.advantage ?? NaN) - 0.70700679) < 1e-6);
  assert.match(right.conversation[0].content, /What is 12 \+ 30\?/);
  assert.equal(r.steps.length, 4, "the curves still come from trainer_state.json");
  for (const t of r.trajectories) assert.ok(trajectoryInput.safeParse(t).success, "every sample is valid ingest input");

  // Completions alone still import (curves from the samples); a cut file is named and the rest lands.
  const parquet = await readFixture(root, "completions/completions_00002.parquet");
  const cut = await readImportFile("completions/completions_00009.parquet", {
    text: async () => "",
    arrayBuffer: async () => new Uint8Array([80, 65, 82, 49, 0, 0]).buffer,
  });
  const alone = runImporter("trl", [parquet, cut], undefined, "trl run");
  assert.equal(alone.trajectories.length, 4);
  assert.deepEqual(
    alone.steps.map((s) => s.step),
    [1],
  );
  assert.deepEqual(
    alone.problems.map((p) => p.file),
    ["completions/completions_00009.parquet"],
  );
  assert.match(alone.problems[0].message, /not a readable Parquet file/);
});

test("SkyRL dumped_evals: each evaluation's samples at its step (eval split), per-token scores summed, the aggregated metrics as curves", () => {
  const root = path.join(dir, "skyrl-export");
  const rel = [
    "dumped_evals/global_step_0_evals/gsm8k.jsonl",
    "dumped_evals/global_step_0_evals/aggregated_results.jsonl",
    "dumped_evals/global_step_5_evals/gsm8k.jsonl",
    "dumped_evals/global_step_5_evals/aggregated_results.jsonl",
  ];
  const r = runImporter(
    "skyrl",
    rel.map((p) => ({ path: p, text: readFileSync(path.join(root, p), "utf8") })),
    undefined,
    "skyrl run",
  );
  assert.equal(r.run.source, "skyrl");
  assert.equal(r.run.environment, "gsm8k");
  assert.deepEqual(
    r.problems.map((p) => `${p.file}:${p.line}`),
    ["dumped_evals/global_step_5_evals/gsm8k.jsonl:5"],
  );
  assert.match(r.problems[0].message, /"score" must be a number or a list of per-token rewards/);
  assert.equal(r.trajectories.length, 8);
  assert.ok(r.trajectories.every((t) => t.split === "eval"));
  assert.deepEqual([...new Set(r.trajectories.map((t) => t.step))], [0, 5]);
  const step5 = r.trajectories.filter((t) => t.step === 5);
  assert.equal(step5[1].reward, 1, "per-token rewards [0, 0, 1] sum to the sequence reward");
  assert.equal(new Set(step5.map((t) => t.group)).size, 2, "two prompts, two samples each");
  assert.equal(step5[2].endReason, "length");
  assert.deepEqual(
    r.steps.map((s) => [s.step, s.metrics["eval/gsm8k/pass_at_2"]]),
    [
      [0, 0.5],
      [5, 1],
    ],
  );
  for (const t of r.trajectories) assert.ok(trajectoryInput.safeParse(t).success, "every sample is valid ingest input");
});

test("SkyRL training batches (dump_data_batch): rows split into policy and tool messages by loss_mask, groups by prompt, advantages and curves; nothing pickled is run", async () => {
  const root = path.join(dir, "skyrl-export");
  const wanted = importFilesWanted("skyrl");
  const rels = ["dumped_data/global_step_1_training_input.pkl", "dumped_data/global_step_2_training_input.pkl", "tokenizer.json"];
  assert.ok(rels.every((p) => wanted.test(p)) && !wanted.test("ckpts/global_step_2/policy/model.safetensors"));
  const files = await Promise.all(rels.map((rel) => readFixture(root, rel)));
  const r = runImporter("skyrl", files, undefined, "skyrl run");
  // step 2 holds a tensor SkyRL could only torch.save (bfloat16): named, the rest read
  assert.deepEqual(
    r.problems.map((p) => p.file),
    ["dumped_data/global_step_2_training_input.pkl"],
  );
  assert.match(r.problems[0].message, /not read: rollout_expert_indices \(stored with torch\.save/);
  assert.equal(r.trajectories.length, 6);
  assert.ok(
    r.trajectories.every((t) => t.split === "train" && t.reward === null),
    "SkyRL drops rewards before the dump: unscored, not 0",
  );
  const step1 = r.trajectories.filter((t) => t.step === 1);
  assert.equal(new Set(step1.map((t) => t.group)).size, 2, "policy_prompt_boundaries: two prompts of two rows");
  // the multi-turn row: call, tool response (not trained), answer
  const weather = step1[2];
  assert.deepEqual(
    weather.conversation.map((m) => [m.role, m.source]),
    [
      ["user", "system"],
      ["assistant", "policy"],
      ["user", "environment"],
      ["assistant", "policy"],
    ],
  );
  assert.equal(weather.conversation[0].content, "<|im_start|>user\nFind the weather in Paris.<|im_end|>\n<|im_start|>assistant\n");
  assert.match(weather.conversation[2].content, /<tool_response>sunny, 21 C<\/tool_response>/);
  assert.equal(weather.conversation[3].content, "It is sunny and 21 C in Paris.<|im_end|>");
  assert.ok(Math.abs((weather.advantage ?? NaN) - 0.7071) < 1e-6);
  assert.equal(weather.conversation[3].advantage, weather.advantage);
  assert.equal(weather.rewardComponents?.kl_mean, 0.125);
  assert.equal(weather.rewardComponents?.logprob_mean, -0.5);
  assert.equal(step1[0].conversation[1].content, "<think>add</think> 5<|im_end|>");
  assert.deepEqual(
    r.steps.map((s) => [s.step, s.metrics["reward/mean"], s.metrics["skyrl/avg_kl"]]),
    [
      [1, 0.5, 0.125],
      [2, 1, 0.125],
    ],
  );
  for (const t of r.trajectories) assert.ok(trajectoryInput.safeParse(t).success, "every sample is valid ingest input");

  // Without the tokenizer the messages show token ids; a file that is not a pickle is named and the rest lands.
  const noTokenizer = runImporter("skyrl", [files[0]], undefined, "skyrl run");
  assert.match(noTokenizer.trajectories[0].conversation[1].content, /^\[token ids\] \d+ \d+/);
  const bad = await readImportFile("dumped_data/global_step_3_training_input.pkl", {
    text: async () => "",
    arrayBuffer: async () => new TextEncoder().encode("not a pickle").buffer as ArrayBuffer,
  });
  const partial = runImporter("skyrl", [files[0], bad], undefined, "skyrl run");
  assert.equal(partial.trajectories.length, 4);
  assert.match(partial.problems[0].message, /not a readable SkyRL training batch/);
});

const real = path.join(dir, "real");
const realFile = (rel: string) => ({ path: rel, text: readFileSync(path.join(real, rel), "utf8") });

test("a real τ²-bench results file: every message, tool call and reward as τ² wrote them; the task, costs and reward basis kept", () => {
  const source = JSON.parse(readFileSync(path.join(real, "tau2-grok-4-fast-airline.json"), "utf8"));
  // Results of a local vLLM commonly record its placeholder key; it used to refuse the whole file.
  source.info.agent_info.llm_args.api_key = "EMPTY";
  const r = runImporter("tau2", [{ path: "grok.json", text: JSON.stringify(source) }], undefined, "tau2 run");
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.notes, [
    {
      file: "grok.json",
      message: "info.agent_info.llm_args.api_key looks like a secret (an API key); it was left out of the run's config",
    },
  ]);
  const info = (r.run.config as { info: { agent_info: { llm_args: Record<string, unknown> } } }).info;
  assert.deepEqual(info.agent_info.llm_args, { temperature: 0 }, "the rest of the agent's settings stay");
  assert.equal(r.run.policyModel, "xai/grok-4-fast-reasoning");
  assert.equal(r.run.environment, "tau2-airline-relaxed", "the fork's domain name");
  const sims = source.simulations as {
    id: string;
    messages: { role: string; content: string | null; tool_calls: unknown[] | null; cost?: number }[];
    reward_info: { reward: number };
  }[];
  assert.equal(r.trajectories.length, 4);
  r.trajectories.forEach((t, i) => {
    const sim = sims[i];
    assert.equal(t.id, sim.id);
    assert.equal(t.group, "8", "the four trials of task 8 are one group");
    assert.equal(t.reward, sim.reward_info.reward);
    assert.deepEqual(
      t.conversation.map((m) => [m.role, m.content, (m.toolCalls ?? []).map((c) => [c.name, c.arguments])]),
      sim.messages.map((m) => [
        m.role,
        m.content ?? "",
        ((m.tool_calls ?? []) as { name: string; arguments: unknown }[]).map((c) => [c.name, c.arguments]),
      ]),
      "every message and tool call, in order",
    );
    assert.equal((t.task as { id: string }).id, "8", "the group's task from tasks[]");
    assert.equal(
      t.llmCalls?.length,
      sim.messages.filter((m) => m.role === "user" && m.cost !== undefined).length,
      "each user-simulator turn is one of its LLM calls",
    );
    assert.ok(trajectoryInput.safeParse(t).success);
  });
  const first = r.trajectories[0];
  assert.equal(
    first.reasoning,
    "Reward basis: DB, COMMUNICATE. database matches the expected state. 4/4 expected actions taken (outside the reward basis: not counted).",
  );
  // τ² opens with a fixed greeting (no LLM call); the first generated reply carries cost and usage.
  const assistant = first.conversation.find((m) => m.role === "assistant" && "usage" in m)! as Record<string, unknown>;
  assert.equal(typeof assistant.cost, "number", "per-message cost kept");
  assert.equal((assistant.usage as { completion_tokens: number }).completion_tokens, assistant.tokens);
  assert.ok((first.responseTokens ?? 0) > 0);
});

test("τ²-bench's directory format (results.json + simulations/) imports like the single file", () => {
  const rels = ["tau2-dir/results.json", ...readdirSync(path.join(real, "tau2-dir/simulations")).map((n) => `tau2-dir/simulations/${n}`)];
  assert.ok(rels.every((p) => importFilesWanted("tau2").test(p)));
  const dirRun = runImporter("tau2", rels.map(realFile), undefined, "tau2 dir");
  const single = runImporter("tau2", [realFile("tau2-grok-4-fast-airline.json")], undefined, "tau2 file");
  assert.deepEqual(dirRun.problems, []);
  assert.equal(dirRun.trajectories.length, 2);
  const byId = new Map(single.trajectories.map((t) => [t.id, t]));
  for (const t of dirRun.trajectories) assert.deepEqual(t, byId.get(t.id));
  assert.deepEqual(dirRun.run.environment, single.run.environment);
  const voice = runImporter(
    "tau2",
    [
      { path: "run/results.json", text: JSON.stringify({ info: {}, tasks: [] }) },
      { path: "run/simulations/a.json", text: JSON.stringify({ id: "a", task_id: "1", ticks: [{ tick_id: 0 }] }) },
    ],
    undefined,
    "voice",
  );
  assert.deepEqual(voice.problems, [{ file: "run/simulations/a.json", message: "a voice simulation (audio ticks, no text messages)" }]);
});

test("a real verl rollout dump: text extras (pred, feedback) stay on their own sample; a NaN score (Python's json) is unscored", () => {
  const text = readFileSync(path.join(real, "verl-sdpo-rollouts/1.jsonl"), "utf8");
  const r = runImporter("verl", [{ path: "1.jsonl", text }], undefined, "verl run");
  assert.deepEqual(r.problems, []);
  assert.equal(r.trajectories.length, 2);
  const [wrong, right] = r.trajectories;
  assert.deepEqual([wrong.reward, right.reward], [0, 1]);
  assert.deepEqual(wrong.rewardComponents, { acc: 0, incorrect_format: 0 });
  assert.match(wrong.reasoning ?? "", /^pred: Actions: \['getFlightInformation'\].*\nfeedback: Action inputs mismatch/s);
  assert.equal(right.reasoning, "pred: Actions: ['searchDomains'], Inputs: {'query': 'music'}", "an empty feedback is left out");
  assert.match(String((wrong.task as { ground_truth: string }).ground_truth), /"Action": "getFlightInformation"/);
  assert.notEqual(wrong.group, right.group, "two prompts, two groups");

  const [first, second] = text.trim().split("\n");
  const nan = runImporter(
    "verl",
    [
      {
        path: "2.jsonl",
        text: `${first.replace('"score": 0.0', '"score": NaN')}\n${second.replace(/"step": 1/, '"step": 2, "uid": "3f9c"')}\n`,
      },
    ],
    undefined,
    "v",
  );
  assert.deepEqual(nan.problems, []);
  assert.equal(nan.trajectories[0].reward, null, "NaN is unscored, never 0 and never a rejected line");
  assert.equal(nan.trajectories[1].group, "uid-3f9c", "verl's uid is the group when the dump has it");
});

test("TRL: a prompt longer than a group key is grouped by its hash and kept whole; max_steps is the run's plan", () => {
  const prompt = `<|im_start|>user\n${"Solve step by step. ".repeat(30)}What is 6 × 7?<|im_end|>`;
  const rows = [0, 1].map((k) => JSON.stringify({ step: 1, prompt, completion: `answer ${k}`, accuracy: k, advantage: k - 0.5 }));
  const r = runImporter(
    "trl",
    [
      { path: "completions/completions_00001.parquet", text: rows.join("\n") },
      {
        path: "checkpoint-1/trainer_state.json",
        text: JSON.stringify({ global_step: 1, max_steps: 600, log_history: [{ step: 1, reward: 0.5 }] }),
      },
    ],
    undefined,
    "trl run",
  );
  assert.ok(prompt.length > 300);
  assert.deepEqual(r.problems, []);
  assert.equal(new Set(r.trajectories.map((t) => t.group)).size, 1, "both completions of the prompt are one group");
  assert.ok(r.trajectories.every((t) => t.group!.length <= 300 && t.conversation[0].content === prompt));
  for (const t of r.trajectories) assert.ok(trajectoryInput.safeParse(t).success, "valid ingest input (the key fits the API's bound)");
  assert.equal(r.run.totalSteps, 600);
  assert.deepEqual(
    r.steps.map((s) => s.step),
    [0],
  );
  assert.deepEqual([...new Set(r.trajectories.map((t) => t.step))], [0]);
});
