/**
 * Simia mode against Simia-RL's own GeneralSimulated env (tests/fixtures/parity/simia-env.json, made by
 * scripts/parity/simia_env_parity.py): the same scripted episodes played here over HTTP with Simia's prompt text
 * (rebuilt from the fixture's templates), and checked request by request — what the simulator and the judge are
 * sent and with which sampling parameters, what the agent is shown, the reward, and the exported record field by
 * field — plus Simia's verdict on 34 judge replies.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { LlmClient } from "../../llm/client";
import { startFakeLlmServer, type FakeChatRequest } from "../../llm/fake-server/server";
import { runEpisode } from "../../rollout/run-episode";
import { toSimiaRecord, type SimiaConfig } from "../../../lib/simia-record";
import type { Task } from "../types";
import { createSimulatedEnvironment, type SimulatedEnvConfigInput, type SimulatedTaskData } from "./index";
import { parseSimulatedTaskFile } from "./importer";

interface SimiaRequest {
  prompt: string;
  model: string;
  temperature: number;
  max_completion_tokens: number;
}
interface Scenario {
  name: string;
  max_steps: number;
  actions: string[];
  replies: string[];
  opening: string;
  requests: SimiaRequest[];
  steps: { observation: string; reward: number; done: boolean }[];
  record: Record<string, unknown> & { gpt_call_history: Record<string, unknown>[]; config: SimiaConfig };
}
const REPO = path.resolve(import.meta.dirname, "../../..");
const fx = JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity/simia-env.json"), "utf8")) as {
  sample: { system: string; conversations: { from: string; value: string }[] };
  templates: { simulator: string; judge: string };
  scenarios: Scenario[];
  judge_replies: { reply: string; reward?: number | "NaN"; reasoning?: unknown; raises?: string }[];
};
const [task] = parseSimulatedTaskFile(JSON.stringify([fx.sample]), "simia-parity.json") as Task<SimulatedTaskData>[];
/** Simia's mode with Simia's own prompt text. */
const simiaConfig = (maxSimSteps: number): SimulatedEnvConfigInput => ({
  maxSimSteps,
  prompts: { simulator: fx.templates.simulator, judge: fx.templates.judge },
  judge: { mode: "simia" },
});

/** Plays a scenario against a loopback server that answers Simia's script in order; returns what it was sent. */
async function play(actions: string[], replies: string[], maxSimSteps: number) {
  const queue = [...replies];
  const requests: FakeChatRequest[] = [];
  const server = await startFakeLlmServer({
    reply: (req) => {
      requests.push(req);
      return queue.shift() ?? "(script exhausted)";
    },
  });
  try {
    const endpoint = { baseUrl: server.url, model: "gpt-5" };
    const llm = new LlmClient({
      endpoints: { user_simulator: endpoint, tool_simulator: endpoint, judge: endpoint },
      retry: { maxAttempts: 1, baseDelayMs: 1 },
    });
    const traj = await runEpisode({
      env: createSimulatedEnvironment(simiaConfig(maxSimSteps)),
      task,
      policy: async (_m, { turn }) => ({ text: actions[turn] ?? "" }),
      ctx: { seed: 0, llm },
      maxTurns: actions.length,
    });
    return { traj, requests };
  } finally {
    await server.close();
  }
}

const played = Promise.all(fx.scenarios.map(async (s) => ({ s, ...(await play(s.actions, s.replies, s.max_steps)) })));
const promptOf = (r: FakeChatRequest) => r.messages.map((m) => m.content).join("\n");

test("the simulator and the judge are sent exactly what Simia sends them, with Simia's sampling parameters", async () => {
  const counts = { simulator: [0, 0], judge: [0, 0], params: [0, 0], "request count": [0, 0] };
  const firstDiff: string[] = [];
  for (const { s, requests } of await played) {
    // One request per Simia request: no extra judge call.
    counts["request count"][1]++;
    if (requests.length === s.requests.length) counts["request count"][0]++;
    s.requests.forEach((want, i) => {
      const got = requests[i];
      const kind = i === s.requests.length - 1 ? "judge" : "simulator";
      counts[kind][1]++;
      if (got && promptOf(got) === want.prompt) counts[kind][0]++;
      else if (firstDiff.length < 1) firstDiff.push(`${s.name}, request ${i}`);
      counts.params[1]++;
      if (got?.params.temperature === want.temperature && got.params.max_completion_tokens === want.max_completion_tokens)
        counts.params[0]++;
    });
  }
  const figures = Object.entries(counts).map(([k, [same, total]]) => `${k} ${same}/${total}`);
  assert.ok(
    Object.values(counts).every(([same, total]) => same === total),
    `identical to Simia's: ${figures.join(", ")} (first difference: ${firstDiff.join("")})`,
  );
});

test("the agent is shown what Simia's step returns, and the episode gets Simia's reward", async () => {
  for (const { s, traj } of await played) {
    const [opening, ...shown] = traj.messages.filter((m) => m.role !== "system" && m.source !== "policy");
    assert.equal(opening.content, s.opening, `${s.name}: the opening, stripped as Simia strips it`);
    // Simia's last observation at the step limit is its own end notice, never sent to the agent's next turn.
    const want = s.steps.filter((st) => !st.observation.startsWith("[Task Ended]")).map((st) => st.observation);
    assert.deepEqual(
      shown.map((m) => m.content),
      want,
      s.name,
    );
    assert.equal(traj.evaluation?.reward, s.record.reward, `${s.name}: ${traj.evaluation?.reasoning}`);
    assert.equal(traj.evaluation?.reasoning, s.record.reasoning, `${s.name}: Simia's reasoning, verbatim`);
  }
});

/** Record fields that depend on where the episode ran (Simia's env slot and episode counter) or when. */
const PLACEMENT = ["env_id", "sample_index", "episode_count", "max_steps", "config"] as const;

test("the exported record is the one Simia writes, field by field", async () => {
  const differs: string[] = [];
  let fields = 0;
  for (const { s, traj } of await played) {
    const want = s.record;
    const rec = toSimiaRecord({
      messages: traj.messages,
      evaluation: traj.evaluation,
      endReason: traj.endReason,
      llmCalls: traj.llmCalls,
      envId: want.env_id as string,
      sampleIndex: want.sample_index as number,
      episodeCount: want.episode_count as number,
      maxSteps: want.max_steps as number,
      referenceConversations: task.data.reference,
      config: want.config,
    }) as unknown as Record<string, unknown>;
    assert.deepEqual(Object.keys(rec), Object.keys(want), "Simia's keys in Simia's order");
    for (const key of Object.keys(want)) {
      if (key === "timestamp" || (PLACEMENT as readonly string[]).includes(key)) continue;
      fields++;
      const strip = (calls: unknown) => (calls as Record<string, unknown>[]).map(({ timestamp: _t, ...c }) => c);
      const [got, exp] = key === "gpt_call_history" ? [strip(rec[key]), strip(want[key])] : [rec[key], want[key]];
      if (key === "termination_reason") {
        // Kept on purpose: Simia saves the record before it sets the reason, so its file always says "unknown".
        assert.equal(exp, "unknown");
        assert.ok(["gpt_decision", "max_steps"].includes(got as string), `${s.name}: ${String(got)}`);
        continue;
      }
      if (JSON.stringify(got) !== JSON.stringify(exp)) differs.push(`${s.name}: ${key}`);
    }
  }
  assert.deepEqual(differs, [], `${differs.length} of ${fields} compared fields differ`);
});

test("Simia's mode scores every judge reply as Simia does; what would stop Simia's run is unscored here", async () => {
  let rewards = 0;
  let both = 0;
  const wrong: string[] = [];
  for (const c of fx.judge_replies) {
    const { traj } = await play(["It has shipped."], ["[TERMINATE]", c.reply], 25);
    const ev = traj.evaluation;
    if (c.raises !== undefined || c.reward === "NaN") {
      // Kept on purpose: Simia's float() raises out of step() (its training stops) or yields NaN; here the episode
      // is left unscored with the reason.
      const ok = ev?.reward === null;
      rewards += ok ? 1 : 0;
      if (ok && /Simia-RL/.test(ev?.reasoning ?? "")) both++;
      else wrong.push(`${JSON.stringify(c.reply)}: ${ev?.reward}`);
      continue;
    }
    const reasoning = typeof c.reasoning === "string" ? c.reasoning : JSON.stringify(c.reasoning);
    rewards += ev?.reward === c.reward ? 1 : 0;
    if (ev?.reward === c.reward && ev?.reasoning === reasoning) both++;
    else wrong.push(`${JSON.stringify(c.reply)}: ${ev?.reward} (${ev?.reasoning}) vs Simia ${c.reward} (${reasoning})`);
  }
  const n = fx.judge_replies.length;
  assert.deepEqual(wrong, [], `rewards ${rewards} of ${n} as Simia's, reward and reasoning ${both} of ${n}`);
});

test("the stricter judge stays available: unscored when unparsable, and a second, corrected attempt", async () => {
  const queue = ["[TERMINATE]", "I think it went fine.", '{"reasoning": "Told the user.", "reward": 1}'];
  const server = await startFakeLlmServer({ reply: () => queue.shift() ?? "" });
  try {
    const endpoint = { baseUrl: server.url, model: "gpt-5" };
    const llm = new LlmClient({ endpoints: { user_simulator: endpoint, judge: endpoint }, retry: { maxAttempts: 1, baseDelayMs: 1 } });
    const traj = await runEpisode({
      env: createSimulatedEnvironment({ ...simiaConfig(25), judge: { mode: "strict" } }),
      task,
      policy: async () => ({ text: "It has shipped." }),
      ctx: { seed: 0, llm },
      maxTurns: 1,
    });
    assert.equal(traj.evaluation?.reward, 1);
    assert.equal(traj.llmCalls.filter((c) => c.role === "judge").length, 2, "the unparsable reply is retried with the problem fed back");
    assert.equal(traj.llmCalls[0].request.params.temperature, undefined, "no Simia sampling parameters outside Simia's mode");
  } finally {
    await server.close();
  }
});
