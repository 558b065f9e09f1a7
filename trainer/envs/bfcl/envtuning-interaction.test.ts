/**
 * Parity with AWorld EnvTuning's own BFCL interaction. tests/fixtures/parity/envtuning-interaction.json holds scripted
 * episodes played through EnvTuning's `MultiTurnFunctionCallInteraction.generate_response` on its fork of the API
 * classes (scripts/parity/envtuning_interaction_parity.py): the ground truth with one turn skipped, and random plays
 * with perturbed calls, format errors, forced quits, names Python cannot parse, empty call lists and answers holding
 * calls. Each message's score code, each ended episode, each execution feedback and format error, and the
 * progress / format rewards must come out as EnvTuning's.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { LlmChat } from "../types";
import { createBfclEpisode, runGroundTruth } from "./bfcl-episode";
import { EMPTY_TURN_CALL_WARNING } from "./envtuning-format";
import type { BfclTaskData } from "./bfcl-format";
import { REPO, loadBfclParityTasks, sameButIntFloats, type FixtureText } from "./testing/parity-fixtures";

interface Episode {
  id: string;
  kind: "gold_skip" | "random";
  steps: { message: string; score: number; done: boolean; content: FixtureText }[];
  progress: number;
  format: number;
  format_reward: number;
  tool_call_reward: number;
}
const fixture = JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity/envtuning-interaction.json"), "utf8")) as {
  episodes: Episode[];
};
const llm: LlmChat = { chat: async () => ({ text: "", callId: "x" }) };

async function replay(task: BfclTaskData, episode: Episode) {
  const gt = runGroundTruth(task, "envtuning");
  const ep = createBfclEpisode(
    task,
    { seed: 0, llm, maxTurns: 1000 },
    {
      protocol: "envtuning",
      rewardMode: "progress",
      toolStyle: "json",
      groundTruth: () => gt,
    },
  );
  await ep.reset();
  const steps: { done: boolean; content: string }[] = [];
  for (const [turn, step] of episode.steps.entries()) {
    const r = await ep.step(step.message, turn);
    steps.push({ done: r.done, content: r.observations.map((o) => o.content).join("\n") });
    if (r.done) break;
  }
  const evaluation = await ep.evaluate("agent_finished");
  const codes = JSON.parse(/round codes (\[[^\]]*\])/.exec(evaluation.reasoning)![1]) as number[];
  return { steps, codes, components: evaluation.components };
}

/** What a step's text must show: EnvTuning's execution feedback or format error as it wrote it, or its warning. */
function contentDiffers(want: FixtureText, got: string): boolean {
  if (typeof want !== "string") return !sameButIntFloats(got, want);
  if (want.startsWith("Here are the function's execution results") || want.startsWith("Error: ")) {
    // JSON's error message is Python's there, JavaScript's here (kept on purpose, docs/environments/bfcl.md).
    if (want.startsWith("Error: Invalid JSON inside <tool_call>:")) return !got.startsWith("Error: Invalid JSON inside <tool_call>:");
    return !sameButIntFloats(got, want);
  }
  if (want.startsWith(EMPTY_TURN_CALL_WARNING)) return !got.startsWith(EMPTY_TURN_CALL_WARNING);
  return got.startsWith(EMPTY_TURN_CALL_WARNING);
}

test("EnvTuning's interaction: every message's score code, end, feedback and the episode's progress and format rewards are EnvTuning's", async () => {
  const tasks = new Map((await loadBfclParityTasks()).map((t) => [t.entryId, t]));
  const differing: string[] = [];
  /** Feedback of power / logarithm calls, whose kept differences nongold-parity.test.ts tells apart. */
  let kept = 0;
  let messages = 0;
  let episodes = 0;
  const agree = { codes: 0, progress: 0, messages: 0 };
  for (const episode of fixture.episodes) {
    const task = tasks.get(episode.id);
    assert.ok(task, `${episode.id} is in this clone's data`);
    episodes++;
    const got = await replay(task, episode);
    const want = episode.steps.map((s) => s.score);
    messages += want.length;
    const where = `${episode.id} (${episode.kind})`;
    if (JSON.stringify(got.codes) === JSON.stringify(want)) agree.codes++;
    if (Math.abs(got.components.progress - episode.progress) <= 1e-9) agree.progress++;
    const before = differing.length;
    if (JSON.stringify(got.codes) !== JSON.stringify(want))
      differing.push(`${where}: codes EnvTuning ${JSON.stringify(want)} | here ${JSON.stringify(got.codes)}`);
    episode.steps.forEach((s, i) => {
      const mine = got.steps[i];
      if (!mine) differing.push(`${where} message ${i}: EnvTuning goes on, here the episode ended`);
      else if (mine.done !== s.done) differing.push(`${where} message ${i}: EnvTuning done ${s.done} | here ${mine.done}`);
      else if (contentDiffers(s.content, mine.content) && /"name": "(power|logarithm)"/.test(s.message)) kept++;
      else if (contentDiffers(s.content, mine.content))
        differing.push(
          `${where} message ${i} ${s.message.slice(0, 80)}: EnvTuning ${JSON.stringify(s.content).slice(0, 160)} | here ${mine.content.slice(0, 160)}`,
        );
    });
    agree.messages += episode.steps.length - (differing.length - before);
    for (const [key, value] of [
      ["progress", episode.progress],
      ["format", episode.format],
      ["format_reward", episode.format_reward],
      ["tool_call_reward", episode.tool_call_reward],
    ] as const) {
      if (Math.abs(got.components[key] - value) > 1e-9) differing.push(`${where}: ${key} EnvTuning ${value} | here ${got.components[key]}`);
    }
  }
  console.log(
    `envtuning interaction parity: code sequences ${agree.codes} / ${episodes} episodes, progress ${agree.progress} / ${episodes}, ` +
      `messages (end, feedback) ${agree.messages} / ${messages}; ${kept} feedback texts of power / logarithm results kept on purpose`,
  );
  assert.ok(episodes >= 300);
  assert.deepEqual(differing.slice(0, 100), [], `${differing.length} differences`);
});

test("multi_turn_base_2 with its first turn answered without a call: EnvTuning's progress 0.8, as its ground truth skips that turn too", async () => {
  const tasks = await loadBfclParityTasks();
  const task = tasks.find((t) => t.entryId === "multi_turn_base_2")!;
  const episode = fixture.episodes.find((e) => e.id === "multi_turn_base_2" && e.kind === "gold_skip")!;
  assert.equal(episode.steps[0].message, "<think>t</think>\n<answer>Done.</answer>", "the fixture skips turn 0");
  assert.equal(episode.progress, 0.8);
  assert.equal((await replay(task, episode)).components.progress, 0.8);
});
