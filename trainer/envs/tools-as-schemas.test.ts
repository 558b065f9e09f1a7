/**
 * Tools as schemas: a policy whose chat template renders tools itself (a Hugging Face checkpoint), an API endpoint
 * given `tools`, or an OpenEnv client gets the function schemas from the episode instead of a tool list written into
 * the system prompt, and its calls arrive as data (OpenAI's wire form: arguments as a JSON string). Every
 * function-calling environment must answer those calls by their ids; environments whose research system defines a
 * text protocol keep it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { runOfflineCall } from "../llm/offline-provider";
import { getEnvironment } from "./registry";
import type { Episode, LlmChat, ToolPresentation } from "./types";

const offline: LlmChat = {
  async chat(req) {
    const { record, text, error } = await runOfflineCall(req);
    if (error || text === null) throw error ?? new Error("no offline reply");
    return { text, callId: record.id };
  },
};

async function open(name: string, toolPresentation: ToolPresentation, options: Record<string, unknown> = {}) {
  const env = getEnvironment(name, options);
  const task = env.builtinTasks()[0];
  const episode: Episode = env.createEpisode(task, { seed: 1, llm: offline, maxTurns: 8, toolPresentation });
  const opening = await episode.reset();
  return { episode, system: opening.find((m) => m.role === "system")?.content ?? "" };
}

/** One function-calling environment per family, with a call it can answer and the call's arguments as sent. */
const FUNCTION_CALLING: { name: string; options?: Record<string, unknown>; call: (tools: string[]) => string }[] = [
  { name: "tau2-retail", call: () => "find_user_id_by_email" },
  { name: "bfcl", options: { protocol: "bfcl" }, call: (tools) => tools[0] },
  { name: "sgd", call: (tools) => tools[0] },
  { name: "simulated", options: { simulator: "split" }, call: (tools) => tools[0] },
];

for (const { name, options, call } of FUNCTION_CALLING) {
  test(`${name}: with tools as schemas the prompt lists none, tools() has them, and a structured call is answered by its id`, async () => {
    const asPrompt = await open(name, "prompt", options);
    assert.deepEqual(asPrompt.episode.tools?.() ?? [], [], "tools in the prompt: no schemas on the side");
    const { episode, system } = await open(name, "schemas", options);
    const tools = episode.tools?.() ?? [];
    assert.ok(tools.length > 0, "schemas offered");
    assert.ok(system.length < asPrompt.system.length, "the system prompt lost its tool list");
    for (const t of tools) assert.ok(!system.includes(JSON.stringify(t.parameters)), `${t.name}'s schema is not in the prompt`);

    const fn = call(tools.map((t) => t.name));
    const step = await episode.step("", 0, [{ id: "call_abc", name: fn, arguments: "{}" }]);
    const answer = step.observations.find((o) => o.role === "tool");
    assert.ok(answer, `a tool result for ${fn}: ${JSON.stringify(step.observations)}`);
    assert.equal(answer.toolCallId, "call_abc", "answered by the id the caller gave");
  });

  test(`${name}: a structured call whose arguments are not JSON gets the environment's format error`, async () => {
    const { episode } = await open(name, "schemas", options);
    const fn = call((episode.tools?.() ?? []).map((t) => t.name));
    const step = await episode.step("", 0, [{ id: "call_x", name: fn, arguments: "{not json" }]);
    assert.ok(
      step.observations.some((o) => o.source === "environment" && o.formatError),
      `format error observed: ${JSON.stringify(step.observations)}`,
    );
  });
}

test("text-protocol environments keep their protocol: no schemas, and a call sent as data means what it means in text", async () => {
  for (const [name, options] of [
    ["bfcl", { protocol: "envtuning" }],
    ["userrl-intention", {}],
    ["guess-number", {}],
  ] as const) {
    const { episode } = await open(name, "schemas", options);
    assert.deepEqual(episode.tools?.() ?? [], [], `${name} offers no schemas`);
  }
  const envTuning = await open("bfcl", "schemas", { protocol: "envtuning" });
  assert.match(envTuning.system, /<tool_call>/, "EnvTuning's prompt keeps its own call format and tool list");
  // UserRL's tool-call form as data: interact_with_env(choice="finish") ends the episode as "[finish]" does.
  const { episode } = await open("userrl-intention", "schemas");
  const r = await episode.step("", 0, [{ name: "interact_with_env", arguments: { choice: "finish", content: "" } }]);
  assert.equal(r.done, true);
  assert.equal(r.endReason, "agent_finished");
});
