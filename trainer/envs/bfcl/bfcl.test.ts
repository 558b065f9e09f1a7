import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatasetError, type EpisodeContext, type LlmChat, type Task } from "../types";
import { createBfclEnvironment, selectStageTasks, BFCL_CURRICULUM_STAGES, type BfclTaskData } from "./index";
import { parsePythonCalls } from "./call-syntax";
import { groundTruthAsJsonCalls } from "./bfcl-demonstrations";
import { PyRandom } from "./py-random";
import { sharedData } from "../../../tests/fixtures/shared-data";

const bfcl = sharedData("data/bfcl");
const BFCL_DIR = bfcl.dir;
const llm: LlmChat = { chat: async (req) => ({ text: req.offline ? await req.offline() : "", callId: "x" }) };
const ctx = (maxTurns = 500): EpisodeContext => ({ seed: 0, llm, maxTurns });

/** JSON tool call for a Python ground-truth call when it only uses keywords; otherwise the Python text itself. */
function asPolicyText(call: string, json: boolean): string {
  const [c] = parsePythonCalls(call);
  if (!json || c.positional.length > 0) return call;
  return `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.keywords })}\n</tool_call>`;
}

async function playGroundTruth(env: ReturnType<typeof createBfclEnvironment>, task: Task<BfclTaskData>, mutate?: (call: string) => string) {
  const ep = env.createEpisode(task, ctx());
  const opening = await ep.reset();
  let turn = 0;
  let done = false;
  const turnRewards: number[] = [];
  let longestObservation = 0;
  for (const calls of task.data.groundTruth) {
    // Alternate formats so both the JSON and the Python-syntax paths are exercised.
    // A turn with more calls than gorilla's 20 steps per turn (one long_context entry has 34) sends them in one step.
    const steps =
      calls.length >= 20 ? [`[${calls.map((c) => (mutate ? mutate(c) : c)).join(", ")}]`] : calls.map((c) => (mutate ? mutate(c) : c));
    for (const call of steps) {
      const step = await ep.step(calls.length >= 20 ? call : asPolicyText(call, turn % 2 === 0), turn++);
      longestObservation = Math.max(longestObservation, ...step.observations.map((m) => m.content.length));
    }
    const r = await ep.step("Done — that request is complete.", turn++);
    if (r.turnReward !== undefined) turnRewards.push(r.turnReward);
    done = r.done;
  }
  return { ep, opening, done, turnRewards, longestObservation };
}

test("every BFCL v4 multi_turn_base entry imports (200 in the full set), and replaying its ground truth scores full reward", async () => {
  const env = createBfclEnvironment({ protocol: "bfcl" });
  const tasks = await env.loadTasks!(BFCL_DIR);
  assert.equal(tasks.length, bfcl.full ? 200 : 30, "every entry's classes are implemented");
  for (const task of tasks) {
    const { ep, done, turnRewards } = await playGroundTruth(env, task);
    assert.equal(done, true);
    assert.ok(
      turnRewards.every((r) => r === 1),
      `${task.id} turn rewards ${turnRewards}`,
    );
    const ev = await ep.evaluate("agent_finished");
    assert.equal(ev.reward, 1, `${task.id}: ${ev.reasoning}`);
    const { tool_call_reward: _toolCalls, format: _format, ...verdicts } = ev.components;
    assert.deepEqual(
      verdicts,
      { format_reward: 1, is_tool_call: 1, progress: 1, state: 1, response: 1, turn_success: 1, bfcl_valid: 1 },
      task.id,
    );
    assert.deepEqual(ev.finalState, ev.expectedState);
  }
});

test("long_context entries import and replaying their ground truth scores full reward, with gorilla's long answers in the conversation", async () => {
  const env = createBfclEnvironment({ protocol: "bfcl" });
  const file = path.resolve(import.meta.dirname, "../../../tests/fixtures/bfcl-gorilla/BFCL_v4_multi_turn_long_context.json");
  const tasks = await env.loadTasks!(file);
  assert.equal(tasks.length, 40);
  let longest = 0;
  for (const task of tasks) {
    const { ep, done, longestObservation } = await playGroundTruth(env, task);
    assert.equal(done, true);
    const ev = await ep.evaluate("agent_finished");
    assert.equal(ev.reward, 1, `${task.id}: ${ev.reasoning}`);
    longest = Math.max(longest, longestObservation);
  }
  assert.ok(longest > 5_000, `the longest tool result shown is ${longest} characters`);
});

test("a wrong call lowers the state reward and names the turn that diverged", async () => {
  const env = createBfclEnvironment({ protocol: "bfcl" });
  const task = (await env.loadTasks!(BFCL_DIR)).find((t) => t.data.entryId === "multi_turn_base_0")!;
  const { ep, turnRewards } = await playGroundTruth(env, task, (c) => c.replace("mkdir(dir_name='temp')", "mkdir(dir_name='tmp')"));
  assert.equal(turnRewards[0], 0);
  const ev = await ep.evaluate("agent_finished");
  assert.equal(ev.components.state, 0);
  assert.ok((ev.reward ?? 1) < 1);
  assert.match(ev.reasoning, /turn 0: state differs in GorillaFileSystem/);
});

test("the opening shows the first user turn and only the involved, non-excluded functions", async () => {
  const env = createBfclEnvironment({ protocol: "bfcl" });
  const task = (await env.loadTasks!(BFCL_DIR)).find((t) => t.data.entryId === "multi_turn_base_0")!;
  const [system, user] = await env.createEpisode(task, ctx()).reset();
  assert.match(system.content, /"name":"mkdir"/);
  assert.match(system.content, /"name":"post_tweet"/);
  assert.doesNotMatch(system.content, /"name":"cp"/, "excluded_function is hidden");
  assert.equal(user.role, "user");
  assert.match(user.content, /Move 'final_report.pdf'/);
});

test("malformed calls are format errors; tool errors are observations, not format errors", async () => {
  const env = createBfclEnvironment({ protocol: "bfcl" });
  const task = env.builtinTasks().find((t) => t.data.entryId === "builtin_fs_notes_0")!;
  const ep = env.createEpisode(task, ctx());
  await ep.reset();
  const bad = await ep.step("cd(folder='notes'", 0);
  assert.equal(bad.observations[0].source, "environment");
  assert.ok(bad.observations[0].formatError);
  const err = await ep.step("cd(folder='nowhere')", 1);
  assert.equal(err.observations[0].source, "tool");
  assert.match(err.observations[0].content, /No such file or directory/);
  const typo = await ep.step("[touch(name='x')]", 2);
  assert.match(
    typo.observations[0].content,
    /^Error during execution: GorillaFileSystem.touch\(\) got an unexpected keyword argument 'name'/,
  );
  const ev = await ep.evaluate("max_turns");
  assert.ok(Math.abs(ev.components.format_reward - 2 / 3) < 1e-9, "one of three messages was malformed");
  // EnvTuning counts only "Error during execution" as a failed call (cd's error is a result): codes -3, -1, -2.
  assert.equal(ev.components.tool_call_reward, 0.5);
  assert.ok(Math.abs(ev.components.format - (2 / 3 + 1 / 2)) < 1e-9);
  assert.equal(ev.components.bfcl_valid, 0);
});

test("builtin tasks run out of the box and score 1 on their ground truth", async () => {
  const env = createBfclEnvironment({ protocol: "bfcl" });
  const tasks = env.builtinTasks();
  assert.equal(tasks.length, 5);
  for (const task of tasks) {
    const { ep } = await playGroundTruth(env, task);
    const ev = await ep.evaluate("agent_finished");
    assert.equal(ev.reward, 1, `${task.id}: ${ev.reasoning}`);
  }
});

test("curriculum stages select format → base → all, and stage 1 rewards format only", async () => {
  const tasks = await createBfclEnvironment().loadTasks!(BFCL_DIR);
  const [s1, s2, s3] = BFCL_CURRICULUM_STAGES;
  const formatTasks = selectStageTasks(tasks, s1);
  if (bfcl.full) assert.equal(formatTasks.length, 52);
  assert.ok(formatTasks.length > 0 && formatTasks.length < tasks.length, "stage 1 keeps only the short entries");
  assert.ok(formatTasks.every((t) => t.data.groundTruth.flat().length <= 4));
  assert.equal(selectStageTasks(tasks, s2).length, tasks.length);
  assert.equal(selectStageTasks(tasks, s3).length, tasks.length);
  const env = createBfclEnvironment({ rewardMode: "format" });
  const ep = env.createEpisode(formatTasks[0], ctx());
  await ep.reset();
  await ep.step('<think>list it</think><tool_call>[{"name": "ls", "arguments": {"a": true}}]</tool_call>', 0);
  const ev = await ep.evaluate("max_turns");
  assert.equal(ev.reward, 2, "well-formed, successful but wrong calls earn the full stage-1 reward (1 × (1 + 1))");
  assert.ok(ev.components.bfcl_valid === 0);
});

test("Python call syntax: keywords, positionals, literals, several calls", () => {
  const calls = parsePythonCalls(
    `[post_tweet('Hi "there"', tags=['#a', "#b"], mentions=[]), edit_ticket(ticket_id=3, updates={'priority': 2, 'status': None}), lockDoors(unlock=False, door=('driver',)), mean([1, -2.5e1, 3_000])]`,
  );
  assert.deepEqual(
    calls.map((c) => c.name),
    ["post_tweet", "edit_ticket", "lockDoors", "mean"],
  );
  assert.deepEqual(calls[0].positional, ['Hi "there"']);
  assert.deepEqual(calls[0].keywords, { tags: ["#a", "#b"], mentions: [] });
  assert.deepEqual(calls[1].keywords, { ticket_id: 3, updates: { priority: 2, status: null } });
  assert.deepEqual(calls[2].keywords, { unlock: false, door: ["driver"] });
  assert.deepEqual(calls[3].positional, [[1, -25, 3000]]);
  assert.deepEqual(
    parsePythonCalls("cd(folder='a')\nls()").map((c) => c.name),
    ["cd", "ls"],
  );
  assert.throws(() => parsePythonCalls("cd(folder=document)"), /not a literal/);
});

test("PyRandom reproduces CPython's random.Random (ids quoted by BFCL ground truth)", () => {
  const r = new PyRandom(141053);
  assert.deepEqual(
    [r.randint(100000, 999999), r.randint(1000000, 9999999), r.randint(10000000, 99999999), r.randint(100000000000, 999999999999)],
    [251675, 5431449, 59784505, 474479286913],
  );
  assert.equal(r.uniform(-10, 40), 22.114445962457907);
  const m = new PyRandom(200191);
  assert.deepEqual([m.randint(10000, 99999), m.randint(10000, 99999)], [67410, 41772]);
});

test("malformed BFCL files are rejected with DatasetError naming file and entry", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "bfcl-bad-"));
  cpSync(path.join(BFCL_DIR, "func_doc"), path.join(dir, "func_doc"), { recursive: true });
  mkdirSync(path.join(dir, "possible_answer"));
  const name = "BFCL_v4_multi_turn_base.json";
  const [q0] = readFileSync(path.join(BFCL_DIR, name), "utf8").split("\n");
  const [a0] = readFileSync(path.join(BFCL_DIR, "possible_answer", name), "utf8").split("\n");
  const env = createBfclEnvironment();
  writeFileSync(path.join(dir, name), `${q0}\n{broken\n`);
  writeFileSync(path.join(dir, "possible_answer", name), `${a0}\n`);
  await assert.rejects(
    env.loadTasks!(dir),
    (e: unknown) => e instanceof DatasetError && e.message.includes(name) && /line 2/.test(e.message),
  );
  writeFileSync(path.join(dir, name), `${q0}\n`);
  const badGt = JSON.parse(a0) as { ground_truth: string[][] };
  badGt.ground_truth[0][0] = "cd(folder='document'";
  writeFileSync(path.join(dir, "possible_answer", name), JSON.stringify(badGt));
  await assert.rejects(
    env.loadTasks!(dir),
    (e: unknown) =>
      e instanceof DatasetError &&
      /possible_answer/.test(e.message) &&
      /multi_turn_base_0/.test(e.message) &&
      /cannot parse/.test(e.message),
  );
  const q = JSON.parse(q0) as Record<string, unknown>;
  q.question = "not a list";
  writeFileSync(path.join(dir, name), JSON.stringify(q));
  await assert.rejects(
    env.loadTasks!(dir),
    (e: unknown) => e instanceof DatasetError && /multi_turn_base_0/.test(e.message) && /"question"/.test(e.message),
  );
});

test("config is validated: an unknown reward mode names the problem", () => {
  assert.throws(() => createBfclEnvironment({ rewardMode: "vibes" }), /bfcl environment config: rewardMode/);
});

/** The ground truth played under EnvTuning's protocol: each turn's calls in one <tool_call>, then an <answer>. */
async function playEnvTuning(env: ReturnType<typeof createBfclEnvironment>, task: Task<BfclTaskData>) {
  const ep = env.createEpisode(task, ctx());
  await ep.reset();
  let turn = 0;
  const feedback: string[] = [];
  for (const calls of task.data.groundTruth) {
    const json = groundTruthAsJsonCalls(calls, task.data.tools);
    if (json.length)
      feedback.push(
        (await ep.step(`<think>do it</think>\n<tool_call>${JSON.stringify(json)}</tool_call>`, turn++)).observations[0].content,
      );
    await ep.step("<think>done</think>\n<answer>Done.</answer>", turn++);
  }
  return { ep, feedback };
}

test("EnvTuning protocol: the ground truth in <think>/<tool_call>/<answer> scores progress 1 and format 2, with EnvTuning's feedback", async () => {
  const env = createBfclEnvironment();
  const tasks = await env.loadTasks!(BFCL_DIR);
  for (const task of tasks) {
    const { ep, feedback } = await playEnvTuning(env, task);
    const ev = await ep.evaluate("agent_finished");
    assert.equal(ev.reward, 1, `${task.id}: ${ev.reasoning}`);
    assert.equal(ev.components.progress, 1);
    assert.equal(ev.components.bfcl_valid, 1);
    assert.match(feedback[0], /^Here are the function's execution results\. Execution results:\["/);
  }
  const [system] = await env.createEpisode(tasks[0], ctx()).reset();
  assert.match(system.content, /<think>/);
  assert.match(system.content, /<tool_call>/);
});

test("EnvTuning format reward: a policy that never calls scores 0; format errors use EnvTuning's messages", async () => {
  const env = createBfclEnvironment({ rewardMode: "format" });
  const task = env.builtinTasks()[0];
  const silent = env.createEpisode(task, ctx());
  await silent.reset();
  for (let t = 0; t < task.data.turns.length; t++) await silent.step("<think>no</think><answer>I will not call anything.</answer>", t);
  const quiet = await silent.evaluate("agent_finished");
  assert.equal(quiet.reward, 0, "is_tool_call is 0");
  assert.equal(quiet.components.format_reward, 1, "every message was well-formed");

  const ep = env.createEpisode(task, ctx());
  await ep.reset();
  const cases: [string, RegExp][] = [
    ["just text", /^Error: Missing <think><\/think> tags$/],
    ["<think>a</think><think>b</think><answer>x</answer>", /Multiple <think><\/think> tag pairs/],
    ["<think>a</think><tool_call>[]</tool_call><answer>x</answer>", /cannot contain both <tool_call> and <answer>/],
    ["<think>a</think>", /must contain either <tool_call> or <answer>/],
    ["<think>a</think> hello <answer>x</answer>", /must not contain text outside the required XML tags/],
  ];
  for (const [i, [text, message]] of cases.entries()) {
    const r = await ep.step(text, i);
    assert.match(r.observations[0].content, message, text);
    assert.ok(r.observations[0].formatError);
    assert.equal(r.done, false);
  }
  // The sixth attempt of the turn forces the next one, with the turn's verdict (0: nothing was called).
  const forced = await ep.step("<think>a</think><tool_call>{oops</tool_call>", 5);
  assert.equal(forced.turnReward, 0);
  const ev = await ep.evaluate("max_turns");
  assert.match(ev.reasoning, /round codes \[-3, -3, -3, -3, -3, 0\]/);

  const fresh = env.createEpisode(task, ctx());
  await fresh.reset();
  assert.match(
    (await fresh.step("<think>a</think><tool_call>{oops</tool_call>", 0)).observations[0].content,
    /^Error: Invalid JSON inside <tool_call>:/,
  );
});

test("EnvTuning: at most 5 attempts per turn; the 6th closes the turn with its verdict", async () => {
  const env = createBfclEnvironment();
  const task = env.builtinTasks().find((t) => t.data.groundTruth.length > 1)!;
  const ep = env.createEpisode(task, ctx());
  await ep.reset();
  const call = `<think>x</think><tool_call>${JSON.stringify([{ name: "pwd", arguments: {} }])}</tool_call>`;
  const rs = [];
  for (let i = 0; i < 6; i++) rs.push(await ep.step(call, i));
  assert.ok(rs.slice(0, 5).every((r) => r.turnReward === undefined && /Execution results/.test(r.observations[0].content)));
  assert.equal(rs[5].turnReward, 0, "the sixth attempt forces the next turn");
  assert.equal(rs[5].observations.at(-1)?.content, task.data.turns[1][0].content, "the next question follows");
});

test("EnvTuning: a turn whose ground truth is empty is passed by answering and failed by calling (calls not run); BFCL's check skips it", async () => {
  const env = createBfclEnvironment();
  const base = env.builtinTasks().find((t) => t.data.groundTruth.length > 1)!;
  // A miss-param-like entry: the second turn has no ground-truth calls (the model should ask instead).
  const task = { ...base, data: { ...base.data, groundTruth: [base.data.groundTruth[0], [], ...base.data.groundTruth.slice(2)] } };
  for (const [reply, verdict] of [
    ["<think>ask</think><answer>Which file do you mean?</answer>", 1],
    ['<think>x</think><tool_call>[{"name": "pwd", "arguments": {}}]</tool_call>', 0],
  ] as const) {
    const ep = env.createEpisode(task, ctx());
    await ep.reset();
    let turn = 0;
    const json = groundTruthAsJsonCalls(task.data.groundTruth[0], task.data.tools);
    await ep.step(`<think>a</think><tool_call>${JSON.stringify(json)}</tool_call>`, turn++);
    assert.equal((await ep.step("<think>b</think><answer>ok</answer>", turn++)).turnReward, 1);
    const r = await ep.step(reply, turn++);
    assert.equal(r.turnReward, verdict);
    if (verdict === 0) assert.match(r.observations[0].content, /^\(SYSTEM WARNING: You should not call any function in this turn/);
    const ev = await ep.evaluate("max_turns");
    assert.match(ev.reasoning, /turn 1: no ground-truth calls \(not state-checked\)/);
  }
});

test('protocol "envtuning" runs EnvTuning\'s fork of the API classes; apis "bfcl" keeps BFCL v4\'s under it', async () => {
  const answer = async (options: Record<string, unknown>) => {
    const env = createBfclEnvironment({ protocol: "envtuning", ...options });
    const task = (await env.loadTasks!(BFCL_DIR)).find((t) => t.data.involvedClasses.includes("GorillaFileSystem"))!;
    const ep = env.createEpisode(task, ctx());
    await ep.reset();
    const call = [{ name: "echo", arguments: { content: "x", file_name: "brand_new.txt" } }];
    return (await ep.step(`<think>t</think><tool_call>${JSON.stringify(call)}</tool_call>`, 0)).observations[0].content;
  };
  // The fork's echo creates a missing file; BFCL v4's refuses (tests/fixtures/parity/bfcl-nongold.json: call by call).
  assert.match(await answer({}), /Execution results:\["None"\]/);
  assert.match(await answer({ apis: "bfcl" }), /echo: cannot write to 'brand_new.txt': No such file/);
});

test("EnvTuning: a call on a last turn whose ground truth is empty ends the episode with EnvTuning's warning text (no question follows)", async () => {
  const env = createBfclEnvironment();
  const base = env.builtinTasks().find((t) => t.data.groundTruth.length > 1)!;
  const last = base.data.turns.length - 1;
  const task = { ...base, data: { ...base.data, groundTruth: base.data.groundTruth.map((g, i) => (i === last ? [] : g)) } };
  const ep = env.createEpisode(task, ctx());
  await ep.reset();
  let turn = 0;
  for (let t = 0; t < last; t++) {
    const json = groundTruthAsJsonCalls(task.data.groundTruth[t], task.data.tools);
    await ep.step(`<think>a</think><tool_call>${JSON.stringify(json)}</tool_call>`, turn++);
    await ep.step("<think>b</think><answer>ok</answer>", turn++);
  }
  const r = await ep.step('<think>x</think><tool_call>[{"name": "pwd", "arguments": {}}]</tool_call>', turn++);
  assert.equal(r.done, true);
  assert.equal(r.turnReward, 0);
  // EnvTuning returns its warning followed by the next question, which is "" after the last turn.
  assert.deepEqual(
    r.observations.map((m) => m.content),
    [
      "(SYSTEM WARNING: You should not call any function in this turn because certain function description(s) or parameter(s) is missing in this turn. Previous turn is forced quit. Current function(s) will not be executed.) Next turn question:\n",
    ],
  );
});
