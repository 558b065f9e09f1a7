/**
 * Parity with UserRL's TravelGym and TauGym on random and perturbed episodes. tests/fixtures/parity/userrl-travel-tau.json
 * was computed by their own env code (scripts/parity/userrl_travel_tau_parity.py: built as UserRL's env_manager.py
 * builds them, played through step_async, TauGym on tau-bench's environment) with a scripted user and judges; the same
 * moves and decisions replay here. Per step: reward, end, and what the observation says — for TravelGym a label of
 * which of its messages it was (the texts here are our own words), for TauGym tau-bench's and the user's text exactly.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { LlmChat, LlmChatRequest, Task } from "../types";
import { createUserRlEnvironment } from "./index";
import { createTauGymEnvironment } from "./tau/index";
import { loadTauGymTasks, type TauGymTask } from "./tau/tau-data";

type TauObs = { label: string } | { text: string } | { sha256: string; length: number; head: string };
interface Step {
  action: string;
  reward: number;
  done: boolean;
  obs: string | TauObs;
  judge?: string;
  aspect?: string;
  type?: string;
  pref?: string;
  reply?: string;
}
interface Play {
  taskId: string;
  config: { stepPenalty?: number; normalizeRewards?: boolean; flipNormalize?: boolean; maxTurns: number };
  steps: Step[];
}

const REPO = path.resolve(import.meta.dirname, "../../..");
const fixture = JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity/userrl-travel-tau.json"), "utf8")) as {
  travel: Play[];
  tau: Play[];
};

/** Which TravelGym message our feedback is (the labels the script gives TravelGym's texts). */
function travelLabel(text: string): string {
  const listing = /^The search arguments are right\. All options for <(\w+)>:\n/.exec(text);
  if (listing) {
    const ids = text
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => (JSON.parse(l) as { id: string }).id)
      .sort();
    return `listing:${listing[1]}:${ids.join(",")}`;
  }
  const labels: [RegExp, string][] = [
    [/already have the results for <(\w+)>/, "searched_before:$1"],
    [/^The search request does not match/, "search_wrong"],
    [/^The search request is not about any/, "search_unrelated"],
    [/^The search backend is having trouble/, "backend_error"],
    [/^Good question, but I have no particular preference/, "not_held"],
    [/^That is too general/, "too_vague"],
    [/^Sorry, I can't really answer that right now/, "user_fallback"],
    [/^'(.*)' is not an option ID\./s, "bad_id:$1"],
    [/^You already recommended an option starting with '(.)'/, "same_initial:$1"],
    [/^Your recommendations include the best option, and a wrong one\./, "choice:best+wrong"],
    [/^That is the best option\./, "choice:best"],
    [/^Your recommendations include an option that meets the preferences, and a wrong one\./, "choice:correct+wrong"],
    [/^That option meets the preferences, but it is not the best one\./, "choice:correct"],
    [/^That option is neither/, "choice:none"],
    [/^Format error/, "format_error"],
    [/^Episode finished\./, "finish"],
  ];
  for (const [re, label] of labels) {
    const m = re.exec(text);
    if (m) return label.replace("$1", m[1] ?? "");
  }
  return `user:${text}`;
}

/** Which TauGym message ours is; tau-bench's tool results and the user's replies compare as text. */
function tauObs(text: string, reward: number): TauObs {
  const labels: [RegExp, string][] = [
    [/^Choose one move per message/, "help"],
    [/^Search not supported for '(.*)'\./s, "search_unsupported:$1"],
    [/^The tools were listed earlier/, "tools_again"],
    [/^Invalid tool call format\./, "invalid_tool_call"],
    [/^Format error/, "invalid_format"],
    [/^Episode finished\./, `finish:${reward.toFixed(1)}`],
  ];
  for (const [re, label] of labels) {
    const m = re.exec(text);
    if (m) return { label: label.replace("$1", m[1] ?? "") };
  }
  if (text.length <= 160) return { text };
  return { sha256: createHash("sha256").update(text).digest("hex").slice(0, 16), length: text.length, head: text.slice(0, 40) };
}

function travelReply(step: Step, req: LlmChatRequest): string {
  if (req.role === "user_simulator") return JSON.stringify({ thought: "t", response: step.reply });
  if (/database search/.test(req.messages[0].content))
    return JSON.stringify({ alignment_judgement: step.judge, alignment_aspect: step.aspect ?? "" });
  return JSON.stringify(step.type === "2" ? { type: "2", preference_id: step.pref } : { type: step.type });
}

type Got = { reward: number; done: boolean; text: string };

async function replay(
  play: Play,
  episode: (llm: LlmChat) => ReturnType<ReturnType<typeof createTauGymEnvironment>["createEpisode"]>,
  reply: (s: Step, r: LlmChatRequest) => string,
) {
  let current = play.steps[0];
  const ep = episode({ chat: async (req) => ({ text: reply(current, req), callId: "c" }) });
  await ep.reset();
  const got: Got[] = [];
  for (const [turn, step] of play.steps.entries()) {
    current = step;
    const r = await ep.step(step.action, turn);
    got.push({ reward: r.turnReward ?? 0, done: r.done, text: r.observations.map((o) => o.content).join("\n") });
    if (r.done) break;
  }
  return got;
}

/** Compares every step; `kept` sorts a differing step into a documented difference (its name), or null. */
function compare(
  gym: string,
  plays: Play[],
  results: Got[][],
  obsOf: (g: Got) => unknown,
  kept: (want: Step, got: Got, play: Play, i: number) => string | null,
) {
  const differing: string[] = [];
  const keptCounts: Record<string, number> = {};
  let steps = 0;
  let same = 0;
  plays.forEach((play, p) => {
    play.steps.forEach((want, i) => {
      steps++;
      const got = results[p][i];
      const where = `${play.taskId} step ${i + 1} ${JSON.stringify(want.action.slice(0, 50))}`;
      const agrees =
        got &&
        Math.abs(got.reward - want.reward) < 1e-12 &&
        got.done === want.done &&
        JSON.stringify(obsOf(got)) === JSON.stringify(want.obs);
      if (agrees) return void same++;
      const why = kept(want, got, play, i);
      if (why) keptCounts[why] = (keptCounts[why] ?? 0) + 1;
      else
        differing.push(
          `${where}: UserRL ${want.reward} ${want.done} ${JSON.stringify(want.obs)} | ours ${got ? `${got.reward} ${got.done} ${JSON.stringify(obsOf(got))}` : "ended"}`,
        );
    });
  });
  console.log(`userrl parity ${gym}: ${same} of ${steps} steps as UserRL; kept differences ${JSON.stringify(keptCounts)}`);
  return { differing, steps, same, keptCounts };
}

test("TravelGym: random and perturbed plays get UserRL's reward, end and message at every step", async () => {
  const file = path.join(REPO, "tests/fixtures/userrl-shaped/travelgym_data_22.json");
  const tasks = await createUserRlEnvironment("travel").loadTasks!(file);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const results: Got[][] = [];
  for (const play of fixture.travel) {
    const env = createUserRlEnvironment("travel", {
      rewardInObservation: false,
      stepPenalty: play.config.stepPenalty,
      ...(play.config.flipNormalize ? { normalizeRewards: play.config.normalizeRewards } : {}),
    });
    const task = byId.get(play.taskId) as Task<unknown>;
    assert.ok(task, play.taskId);
    results.push(
      await replay(play, (llm) => env.createEpisode(task as never, { seed: 1, llm, maxTurns: play.config.maxTurns }), travelReply),
    );
  }
  const empty = (action: string) => /^\[(action|search|answer)\]\s*$/.test(action);
  const { differing, steps, same } = compare(
    "travel",
    fixture.travel,
    results,
    (g) => travelLabel(g.text),
    (want, got, play, i) => {
      // An empty move is the shared parser's format error (same reward); TravelGym runs it (an empty search or question).
      if (empty(want.action) && got && got.reward === want.reward) return "empty move";
      // ... so TravelGym counted it: a later search's deliberate failure or the user's apology can come a move apart.
      if (play.steps.slice(0, i).some((s) => empty(s.action))) return "after an empty move";
      return null;
    },
  );
  assert.ok(steps > 300, `${steps} steps`);
  // The kept differences stay the few empty moves: 433 of 455 when this was written.
  assert.ok(same >= steps - 25, `${same} of ${steps} as TravelGym`);
  assert.deepEqual(differing.slice(0, 40), [], `${differing.length} of ${steps} steps differ`);
});

test("TauGym: random and perturbed plays get TauGym's reward, end and observation at every step", async () => {
  const tasks = await loadTauGymTasks(path.join(REPO, "tests/fixtures/userrl/tau/tau_test.json"));
  const byId = new Map(tasks.map((t) => [t.data.taskId, t]));
  const env = createTauGymEnvironment({ rewardInObservation: false });
  const results: Got[][] = [];
  for (const play of fixture.tau) {
    const task = byId.get(play.taskId) as Task<TauGymTask>;
    assert.ok(task, play.taskId);
    results.push(
      await replay(
        play,
        (llm) => env.createEpisode(task, { seed: 1, llm, maxTurns: play.config.maxTurns }),
        (s) => s.reply ?? "",
      ),
    );
  }
  // An empty move is the shared parser's format error (reward 0 as in TauGym, which says "" to the customer, or
  // answers an empty search or tool call with its own message).
  const { differing, steps, same } = compare(
    "tau",
    fixture.tau,
    results,
    (g) => tauObs(g.text, g.reward),
    (want, got) =>
      /^\[(action|search|answer)\]\s*$/.test(want.action) && got && got.reward === want.reward && got.done === want.done
        ? "empty move"
        : null,
  );
  assert.ok(steps > 400, `${steps} steps`);
  assert.ok(same >= steps - 20, `${same} of ${steps} as TauGym`); // 497 of 515 when this was written
  assert.deepEqual(differing.slice(0, 40), [], `${differing.length} of ${steps} steps differ`);
});
