/**
 * Parity with UserRL's own gym and advantage code. tests/fixtures/parity/userrl-gyms.json was computed by UserRL's
 * gyms (built as its training's env_manager.py builds them, played through step_async) and its core_algos.py
 * (scripts/parity/userrl_gyms_parity.py): random plays of the records in tests/fixtures/userrl with a scripted
 * user/judge, each step's reward and end; TurtleGym's score of every story for random grades; turn credits and token
 * advantages. The same plays run here, the scripted decisions rendered into this project's prompts' reply formats.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { LlmChat, LlmChatRequest, Task } from "../types";
import { createUserRlEnvironment, type GymName } from "./index";
import { withReward } from "./gym-episode";
import {
  computeTurnCredits,
  computeTrajectoryScore,
  computeMultiTurnCredits,
  computeMultiTurnTokenAdvantages,
  turnIdsFromBoundaries,
} from "../../grpo/multiturn";

interface Step {
  action: string;
  reward: number;
  done: boolean;
  feedback?: string;
  reply?: string;
  judge?: "Yes" | "No";
  grades?: number[];
  covers?: string[];
  stance?: string;
}
interface Play {
  taskId: string;
  config: { stepPenalty: number; normalizeRewards: boolean; flipNormalize: boolean; maxTurns: number };
  steps: Step[];
}
interface Fixture {
  episodes: Record<string, Play[]>;
  turtle_scores: { story: string; grades: number[]; score: number }[];
  turn_credits: ({ rewards: number[]; score_Sum: number; score_R2G: number } & Record<"Equalized" | "R2G" | "EM", number[]>)[];
  advantage_groups: {
    method: string;
    score: string;
    rows: { rewards: number[]; boundaries: number[]; mask: number[]; advantages: number[] }[];
  }[];
}

const REPO = path.resolve(import.meta.dirname, "../../..");
const SAMPLES = path.join(REPO, "tests/fixtures/userrl");
const fixture = JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity/userrl-gyms.json"), "utf8")) as Fixture;

const DATA_FILES: Record<string, string> = {
  telepathy: "all_entities_refined.json",
  turtle: "all_stories_refined.json",
  function: "functions.json",
  intention: "all_intentions_test.json",
  persuade: "persuasion_multiturn_test.parquet",
  search: "questions.json",
};

/** The step's scripted decision in the reply format this project's prompt asks that role for. */
function reply(gym: string, step: Step, req: LlmChatRequest): string {
  const prompt = req.messages.map((m) => m.content).join("\n");
  if (req.role === "tool_simulator") return "1. A page\n- Snippet: nothing relevant.";
  if (gym === "intention" && req.role === "judge") {
    const listed = new Map([...prompt.matchAll(/^(\d+)\. (.*)$/gm)].map((m) => [m[2], Number(m[1])]));
    return JSON.stringify({ covered_detail_indices: (step.covers ?? []).flatMap((d) => (listed.has(d) ? [listed.get(d)] : [])) });
  }
  if (gym === "intention") return step.reply ?? "";
  if (gym === "persuade") return JSON.stringify({ thought: "t", response: "r", stance: step.stance });
  if (req.role === "judge" && step.grades) return JSON.stringify({ scores: step.grades });
  if (req.role === "judge") return JSON.stringify({ reasoning: "t", judgment: step.judge, feedback: "f" });
  return JSON.stringify({ response: step.reply });
}

async function replay(gym: string, play: Play, task: Task<unknown>) {
  const options = {
    stepPenalty: play.config.stepPenalty,
    ...(play.config.flipNormalize ? { normalizeRewards: play.config.normalizeRewards } : {}),
  };
  const env = createUserRlEnvironment(gym as GymName, options);
  let current: Step = play.steps[0];
  const llm: LlmChat = {
    async chat(req) {
      if (gym === "function") throw new Error("FunctionGym makes no LLM call");
      return { text: reply(gym, current, req), callId: "c" };
    },
  };
  const ep = env.createEpisode(task as never, { seed: 1, llm, maxTurns: play.config.maxTurns });
  await ep.reset();
  const got: { reward: number; done: boolean; feedback: string }[] = [];
  for (const [turn, step] of play.steps.entries()) {
    current = step;
    const r = await ep.step(step.action, turn);
    got.push({ reward: r.turnReward ?? 0, done: r.done, feedback: r.observations.map((o) => o.content).join("\n") });
    if (r.done) break;
  }
  return got;
}

for (const gym of Object.keys(DATA_FILES)) {
  test(`${gym}: every step of UserRL's random plays gets UserRL's reward and ends where UserRL's does`, async () => {
    const tasks = await createUserRlEnvironment(gym as GymName).loadTasks!(path.join(SAMPLES, DATA_FILES[gym]));
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const differing: string[] = [];
    /** Kept on purpose: "[action]" with nothing after it is the shared parser's format error here (same reward). */
    const emptyBracket: string[] = [];
    let steps = 0;
    for (const play of fixture.episodes[gym]) {
      const task = byId.get(play.taskId);
      assert.ok(task, `${gym}: task ${play.taskId} imports`);
      const got = await replay(gym, play, task as Task<unknown>);
      play.steps.forEach((want, i) => {
        steps++;
        const mine = got[i];
        const where = `${play.taskId} (penalty ${play.config.stepPenalty}, normalize ${play.config.normalizeRewards}) step ${i + 1} ${JSON.stringify(want.action.slice(0, 40))}`;
        if (!mine) differing.push(`${where}: UserRL plays on, ours ended`);
        else if (Math.abs(mine.reward - want.reward) > 1e-12 || mine.done !== want.done)
          differing.push(`${where}: UserRL reward ${want.reward} done ${want.done} | ours ${mine.reward} done ${mine.done}`);
        // What UserRL's training tool returns to the model: the gym's feedback, then its reward (interact_tool.py).
        else if (want.feedback !== undefined && mine.feedback !== withReward(want.feedback, want.reward)) {
          if (/^\[\w+\]\s*$/.test(want.action) && mine.feedback.startsWith("Format error (empty_bracket)")) emptyBracket.push(where);
          else
            differing.push(
              `${where}: UserRL says ${JSON.stringify(withReward(want.feedback, want.reward))} | ours ${JSON.stringify(mine.feedback)}`,
            );
        }
      });
    }
    const kept = emptyBracket.length ? ` (${emptyBracket.length} empty-bracket steps answered as a format error, kept on purpose)` : "";
    console.log(`userrl parity ${gym}: ${steps - differing.length - emptyBracket.length} of ${steps} steps as UserRL${kept}`);
    assert.deepEqual(differing.slice(0, 8), [], `${differing.length} of ${steps} steps differ`);
  });
}

test("TurtleGym: an answer scores Σ weight × grade over the story's own evaluation criteria, as UserRL scores it", async () => {
  const full = process.env.USERRL_DATA ? path.join(process.env.USERRL_DATA, "TurtleGym/turtlegym/data/all_stories_refined.json") : null;
  const tasks = await createUserRlEnvironment("turtle").loadTasks!(full ?? path.join(SAMPLES, "all_stories_refined.json"));
  const byId = new Map(tasks.map((t) => [t.id, t]));
  let compared = 0;
  const differing: string[] = [];
  for (const want of fixture.turtle_scores) {
    const task = byId.get(`turtle-${want.story}`);
    if (!task) continue;
    compared++;
    const llm: LlmChat = { chat: async () => ({ text: JSON.stringify({ scores: want.grades }), callId: "c" }) };
    const ep = createUserRlEnvironment("turtle").createEpisode(task, { seed: 1, llm, maxTurns: 5 });
    await ep.reset();
    const got = (await ep.step("[answer] my story", 0)).turnReward;
    if (got !== want.score) differing.push(`story ${want.story} grades ${JSON.stringify(want.grades)}: UserRL ${want.score} | ours ${got}`);
  }
  console.log(`userrl parity turtle scoring: ${compared - differing.length} of ${compared} stories as UserRL`);
  assert.ok(compared >= (full ? 471 : 6), `${compared} stories compared`);
  assert.deepEqual(differing.slice(0, 8), [], `${differing.length} of ${compared} differ`);
});

test("turn credits and trajectory scores are UserRL's compute_turn_credits (Python's round included)", () => {
  const differing: string[] = [];
  for (const c of fixture.turn_credits) {
    for (const method of ["Equalized", "R2G", "EM"] as const) {
      const got = computeTurnCredits(c.rewards, method, 0.8);
      if (got.some((x, i) => Math.abs(x - c[method][i]) > 1e-12))
        differing.push(`${method} ${JSON.stringify(c.rewards)}: ${c[method]} | ${got}`);
    }
    for (const score of ["Sum", "R2G"] as const) {
      const got = computeTrajectoryScore(c.rewards, score, 0.8);
      if (Math.abs(got - c[`score_${score}`]) > 1e-12)
        differing.push(`score ${score} ${JSON.stringify(c.rewards)}: ${c[`score_${score}`]} | ${got}`);
    }
  }
  console.log(
    `userrl parity credits: ${fixture.turn_credits.length * 5 - differing.length} of ${fixture.turn_credits.length * 5} as UserRL`,
  );
  assert.deepEqual(differing.slice(0, 8), [], `${differing.length} differ`);
});

test("token advantages are UserRL's compute_grpo_multiturn_advantage: with R2G a group's failures get 0 on every token", () => {
  const differing: string[] = [];
  for (const [g, group] of fixture.advantage_groups.entries()) {
    const result = computeMultiTurnCredits(
      group.rows.map((r) => r.rewards),
      group.rows.map(() => g),
      { turnCredit: group.method, trajectoryScore: group.score, gamma: 0.8, epsilon: 1e-6 },
    );
    group.rows.forEach((row, i) => {
      const got = computeMultiTurnTokenAdvantages(result.trajectories[i], turnIdsFromBoundaries(row.boundaries), row.mask);
      if (got.some((a, t) => Math.abs(a - row.advantages[t]) > 1e-6))
        differing.push(
          `group ${g} ${group.method}/${group.score} row ${i}: UserRL ${row.advantages} | ours ${got.map((a) => a.toFixed(6))}`,
        );
    });
  }
  assert.deepEqual(differing.slice(0, 5), []);
  // The issue's group: one success [0, 0, 1] and three failures [0, 0, 0] under R2G credit.
  const named = fixture.advantage_groups[0];
  assert.deepEqual(
    named.rows.map((r) => r.rewards),
    [
      [0, 0, 1],
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ],
  );
  assert.equal(named.method, "R2G");
  assert.ok(
    named.rows.slice(1).every((r) => r.advantages.every((a) => a === 0)),
    "UserRL leaves the failures at 0",
  );
  assert.ok(
    named.rows[0].advantages.some((a) => a > 0),
    "and reinforces the success",
  );
});
