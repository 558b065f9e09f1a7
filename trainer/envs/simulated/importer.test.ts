import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatasetError } from "../types";
import { LlmClient } from "../../llm/client";
import { runEpisode } from "../../rollout/run-episode";
import { BUILTIN_TASKS_DIR, createSimulatedEnvironment, loadSimulatedTasks, parseSimulatedTaskFile } from "./index";
import { simiaSample } from "./testing/simia-sample";

test("the shipped task directory loads through the public importer", async () => {
  const tasks = await loadSimulatedTasks(BUILTIN_TASKS_DIR);
  assert.equal(tasks.length, createSimulatedEnvironment().builtinTasks().length);
});

test("Simia-RL samples import: opening, follow-ups, tools from <tools>, expected calls with their results", async () => {
  const [t] = parseSimulatedTaskFile(JSON.stringify([simiaSample]), "apigen.json");
  assert.equal(t.id, "simia-0");
  assert.equal(t.data.opening, "Where is order #W100?");
  assert.deepEqual(t.data.followUps, ["Great, thanks!"]);
  assert.equal(t.data.tools[0].name, "get_order");
  assert.deepEqual(t.data.expected.calls, [
    { name: "get_order", arguments: { order_id: "#W100" }, result: { status: "shipped", eta: "Friday" } },
  ]);
  assert.doesNotMatch(t.data.policy, /<tools>/);
  assert.equal(t.data.systemPrompt, simiaSample.system, "the agent's system prompt is the sample's, verbatim");
  // And it is playable offline: the tool simulator answers from the reference.
  const traj = await runEpisode({
    env: createSimulatedEnvironment({ simulator: "split" }),
    task: t,
    policy: async (_m, { turn }) => ({
      text: turn === 0 ? '<tool_call>{"name": "get_order", "arguments": {"order_id": "#W100"}}</tool_call>' : "[finish]",
    }),
    ctx: { seed: 0, llm: new LlmClient({}) },
    maxTurns: 3,
  });
  assert.match(traj.messages.find((m) => m.role === "tool")?.content ?? "", /Friday/);
  assert.equal(traj.evaluation?.reward, 1);
});

test("malformed files and records throw DatasetError naming the file and the record", async () => {
  const cases: [string, RegExp][] = [
    ["{not json", /tasks\.json: not valid JSON/],
    ['{"items": []}', /expected a JSON list/],
    [JSON.stringify([{ id: "t1", domain: "x", opening: "hi" }]), /tasks\.json \(record t1\): instruction/],
    [JSON.stringify([{ conversations: [] }]), /\(record 0\): conversations/],
    [JSON.stringify([{ conversations: [{ from: "gpt", value: "hello" }] }]), /no human message/],
    [
      JSON.stringify([{ system: "", tools: "{oops", conversations: [{ from: "human", value: "hi" }] }]),
      /"tools" is a string but not valid JSON/,
    ],
    [
      JSON.stringify([
        { id: "t2", domain: "x", instruction: "i", opening: "o", expected: { calls: [{ name: "ghost", arguments: {}, result: 1 }] } },
      ]),
      /undeclared tool\(s\): ghost/,
    ],
  ];
  for (const [text, pattern] of cases) {
    assert.throws(
      () => parseSimulatedTaskFile(text, "tasks.json"),
      (e: unknown) => e instanceof DatasetError && pattern.test(e.message),
      text,
    );
  }
  const dir = await mkdtemp(path.join(tmpdir(), "sim-tasks-"));
  try {
    await writeFile(
      path.join(dir, "bad.json"),
      JSON.stringify([
        { id: "dup", domain: "d", instruction: "i", opening: "o" },
        { id: "dup", domain: "d", instruction: "i", opening: "o" },
      ]),
    );
    await assert.rejects(
      loadSimulatedTasks(dir),
      (e: unknown) => e instanceof DatasetError && e.file.endsWith("bad.json") && e.record === "dup",
    );
    await assert.rejects(loadSimulatedTasks(path.join(dir, "missing.json")), /not found/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
