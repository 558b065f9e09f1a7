/**
 * EnvTuning's reworded tool errors. tests/fixtures/parity/envtuning-messages.json holds, for each probe call, the
 * result of gorilla's executor on gorilla's classes and of EnvTuning's executor on EnvTuning's classes
 * (scripts/parity/envtuning_messages_parity.py). Here the same call runs on the ported classes with each system's
 * messages and must give each system's text.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { BfclRuntime, type RuntimeOptions } from "./runtime";
import { parsePythonCalls } from "./call-syntax";
import { createBfclEnvironment } from "./index";
import type { LlmChat } from "../types";
import { sharedData } from "../../../tests/fixtures/shared-data";

interface Probe {
  class: string;
  config: Record<string, unknown>;
  call: string;
  gorilla: string;
  envtuning: string;
}
const fixture = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, "../../../tests/fixtures/parity/envtuning-messages.json"), "utf8"),
) as { probes: Probe[] };

function run(probe: Probe, messages: RuntimeOptions["messages"]): string {
  const rt = new BfclRuntime([probe.class], { [probe.class]: probe.config }, { longContext: false, messages });
  const [call] = parsePythonCalls(probe.call);
  return rt.execute(call).result;
}

test("with EnvTuning's messages every probe reads as EnvTuning's code words it; with gorilla's, as gorilla's", () => {
  assert.ok(fixture.probes.length >= 45);
  const differing: string[] = [];
  for (const probe of fixture.probes) {
    for (const messages of ["gorilla", "envtuning"] as const) {
      const got = run(probe, messages);
      if (got !== probe[messages]) differing.push(`${probe.call} (${messages}): want ${probe[messages]} | got ${got}`);
    }
  }
  assert.deepEqual(differing, []);
});

test("EnvTuning's messages change wording only: the state after each probe is the same either way", () => {
  for (const probe of fixture.probes) {
    const states = (["gorilla", "envtuning"] as const).map((messages) => {
      const rt = new BfclRuntime([probe.class], { [probe.class]: probe.config }, { longContext: false, messages });
      rt.execute(parsePythonCalls(probe.call)[0]);
      return JSON.stringify(rt.state());
    });
    assert.equal(states[1], states[0], probe.call);
  }
});

test("the policy reads EnvTuning's actionable message under the EnvTuning protocol, gorilla's under gorilla's", async () => {
  const llm: LlmChat = { chat: async (req) => ({ text: req.offline ? await req.offline() : "", callId: "x" }) };
  const shown: Record<string, string> = {};
  for (const protocol of ["envtuning", "bfcl"] as const) {
    const env = createBfclEnvironment({ protocol });
    const task = (await env.loadTasks!(sharedData("data/bfcl").dir)).find((t) => t.data.involvedClasses.includes("GorillaFileSystem"))!;
    const ep = env.createEpisode(task, { seed: 0, llm, maxTurns: 50 });
    await ep.reset();
    const call = { name: "wc", arguments: { file_name: "no_such_file.txt" } };
    const text =
      protocol === "envtuning"
        ? `<think>count</think>\n<tool_call>${JSON.stringify(call)}</tool_call>`
        : "wc(file_name='no_such_file.txt')";
    shown[protocol] = (await ep.step(text, 0)).observations.map((m) => m.content).join("\n");
  }
  assert.match(shown.envtuning, /wc: 'no_such_file\.txt': No such file in current directory\./);
  assert.match(shown.bfcl, /wc: no_such_file\.txt: No such file or directory/);
});
