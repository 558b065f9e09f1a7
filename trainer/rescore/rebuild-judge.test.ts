import { test } from "node:test";
import assert from "node:assert/strict";
import type { ConversationMessage } from "../../lib/conversation";
import { JudgeScorerSchema, ScorerSchema } from "../../lib/rescoring-config";
import { createOfflineLlm } from "../llm/offline-provider";
import { checklistJudgeReply, judgePromptFor, offlineJudgeFor, reconstructSimulatedState, type StoredTrajectory } from "./rebuild-judge";
import { scoreTrajectory } from "./score-trajectory";

const task = {
  id: "t1",
  split: "train",
  tags: [],
  data: {
    domain: "airline",
    instruction: "Move booking QX7 to Friday",
    opening: "Please move QX7 to Friday.",
    tools: [{ name: "change_flight", description: "change", parameters: { type: "object", properties: {} } }],
    expected: {
      calls: [{ name: "change_flight", arguments: { pnr: "QX7", day: "Friday" }, result: { ok: true } }],
      facts: ["moved to friday"],
      forbiddenCalls: [],
    },
  },
};

// The agent made the right call but never told the user the outcome: half the checklist.
const conversation: ConversationMessage[] = [
  { role: "system", source: "system", turn: 0, content: "You are an agent." },
  { role: "user", source: "user_simulator", turn: 0, content: "Please move QX7 to Friday." },
  {
    role: "assistant",
    source: "policy",
    turn: 0,
    content: "<tool_call>...</tool_call>",
    toolCalls: [{ id: "c0", name: "change_flight", arguments: { pnr: "QX7", day: "Friday" } }],
  },
  { role: "tool", source: "tool_simulator", turn: 1, toolCallId: "c0", name: "change_flight", content: '{"ok":true}' },
  { role: "assistant", source: "policy", turn: 1, content: "Done. Anything else?" },
];
const traj: StoredTrajectory = {
  id: "traj-1",
  conversation,
  rewardComponents: {},
  finalState: null,
  expectedState: null,
  status: "ok",
  endReason: "agent_finished",
};

test("the simulated env's own offline judge re-judges a stored conversation: lenient passes, strict fails", () => {
  const state = reconstructSimulatedState(conversation);
  assert.equal(state.calls.length, 1);
  assert.equal(state.calls[0].result, '{"ok":true}');
  assert.equal(state.policyTurns, 2);
  const lenient = JSON.parse(offlineJudgeFor(traj, task, JudgeScorerSchema.parse({ kind: "judge", offline: { threshold: 0.5 } }), "k")());
  const strict = JSON.parse(offlineJudgeFor(traj, task, JudgeScorerSchema.parse({ kind: "judge", offline: { threshold: 1 } }), "k")());
  assert.equal(lenient.reward, 1);
  assert.equal(strict.reward, 0);
  assert.match(strict.reasoning, /✗ told the user "moved to friday"/);
});

test("the judge prompt is the user's template filled from the stored task and conversation", () => {
  const scorer = JudgeScorerSchema.parse({ kind: "judge", prompt: "Goal={{instruction}}\n{{history}}\nunknown={{nope}}" });
  const [msg] = judgePromptFor(traj, task, scorer);
  assert.match(msg.content, /^Goal=Move booking QX7 to Friday/);
  assert.match(msg.content, /Agent: <tool_call>...<\/tool_call> \[calls: change_flight\({"pnr":"QX7","day":"Friday"}\)\]/);
  assert.match(msg.content, /unknown=\{\{nope\}\}/, "a typo in a placeholder stays visible");
});

test("other environments get a checklist judge over components and final vs expected state", () => {
  const demo: StoredTrajectory = {
    ...traj,
    rewardComponents: { goal: 1, verified_reservation: 0 },
    finalState: { reservation: { day: "Fri" } },
    expectedState: { reservation: { day: "Fri" } },
  };
  assert.equal(JSON.parse(checklistJudgeReply(demo, 0.5)).reward, 1);
  const strict = JSON.parse(checklistJudgeReply(demo, 1));
  assert.equal(strict.reward, 0);
  assert.match(strict.reasoning, /✗ component verified_reservation = 0/);
  assert.match(strict.reasoning, /✓ final state matches the expected state/);
});

test("k noisy offline judgements disagree (seeded, so the same job gives the same figures) and calls are recorded", async () => {
  const scorer = ScorerSchema.parse({ kind: "judge", samples: 9, offline: { threshold: 0.5, noise: 0.4 } });
  const records: unknown[] = [];
  const a = await scoreTrajectory(
    traj,
    task,
    scorer,
    createOfflineLlm((r) => records.push(r)),
    "job-1",
  );
  const b = await scoreTrajectory(traj, task, scorer, createOfflineLlm(), "job-1");
  assert.equal(a.samples.length, 9);
  assert.equal(records.length, 9);
  assert.ok(a.agreement !== null && a.agreement < 1, `noise makes judgements disagree (agreement ${a.agreement})`);
  assert.ok((a.rewardStd ?? 0) > 0);
  assert.deepEqual(
    a.samples.map((s) => s.reward),
    b.samples.map((s) => s.reward),
  );
});

test("re-weighting components is a programmatic re-score; a missing component leaves it unscored, not 0", async () => {
  const withComponents = { ...traj, rewardComponents: { goal: 1, verified: 0.5 } };
  const r = await scoreTrajectory(
    withComponents,
    task,
    ScorerSchema.parse({ kind: "weights", weights: { goal: 0.5, verified: 1 } }),
    createOfflineLlm(),
    "x",
  );
  assert.equal(r.reward, 1);
  const missing = await scoreTrajectory(
    withComponents,
    task,
    ScorerSchema.parse({ kind: "weights", weights: { format: 1 } }),
    createOfflineLlm(),
    "x",
  );
  assert.equal(missing.reward, null);
  assert.match(missing.reasoning, /format not recorded/);
});
