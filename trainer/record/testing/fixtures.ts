/**
 * Realistic synthetic step records for tests and bench/persist.ts: multi-turn conversations (user simulator,
 * policy tool calls, tool-simulator replies) with one simulator call per turn and a judge call per episode.
 */
import { randomUUID } from "node:crypto";
import type { ConversationMessage, LlmCallRecord, LlmRole } from "../../../lib/conversation";
import type { GroupRecord, StepRecord, TrajectoryRecord } from "../step-record";

export function makeLlmCall(role: LlmRole, turn: number | null, over: Partial<LlmCallRecord> = {}): LlmCallRecord {
  return {
    id: randomUUID(),
    role,
    model: "offline",
    endpoint: "offline",
    request: {
      messages: [{ role: "system", content: `You play the ${role}. Reply briefly and stay in character.` }],
      params: { temperature: 0.7 },
    },
    response: { text: `reply of the ${role} at turn ${turn}`, finishReason: "stop" },
    latencyMs: 100,
    promptTokens: 120,
    completionTokens: 30,
    costUsd: 0.0001,
    attempt: 1,
    error: null,
    cached: false,
    turn,
    startedAt: new Date(0).toISOString(),
    ...over,
  };
}

export interface TrajectoryOptions {
  indexInGroup?: number;
  reward?: number | null;
  turns?: number;
  advantage?: number | null;
  components?: Record<string, number>;
}

export function makeTrajectory(opts: TrajectoryOptions = {}): TrajectoryRecord {
  const turns = opts.turns ?? 2;
  const conversation: ConversationMessage[] = [
    { role: "system", source: "system", turn: 0, content: "You are a retail support agent. Tools: find_order(id), refund(id)." },
  ];
  const llmCalls: LlmCallRecord[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const user = makeLlmCall("user_simulator", turn);
    llmCalls.push(user);
    conversation.push({
      role: "user",
      source: "user_simulator",
      turn,
      content: `I would like a refund for order #${1000 + turn}, please.`,
      llmCallIds: [user.id],
    });
    conversation.push({
      role: "assistant",
      source: "policy",
      turn,
      content: "",
      toolCalls: [{ id: `call_${turn}`, name: "find_order", arguments: { id: 1000 + turn } }],
      tokens: 24,
      advantage: opts.advantage ?? undefined,
    });
    const tool = makeLlmCall("tool_simulator", turn);
    llmCalls.push(tool);
    conversation.push({
      role: "tool",
      source: "tool_simulator",
      turn,
      toolCallId: `call_${turn}`,
      name: "find_order",
      content: `{"id":${1000 + turn},"status":"delivered"}`,
      llmCallIds: [tool.id],
    });
  }
  llmCalls.push(makeLlmCall("judge", null, { latencyMs: 400 }));
  const reward = opts.reward === undefined ? 0.5 : opts.reward;
  return {
    indexInGroup: opts.indexInGroup ?? 0,
    reward,
    components: opts.components ?? (reward === null ? {} : { task_success: reward, format: 1 }),
    advantage: opts.advantage ?? 0,
    reasoning: reward === null ? null : "The agent looked up the order and issued the refund.",
    status: reward === null ? "unscored" : "ok",
    endReason: "user_done",
    error: null,
    numTurns: turns,
    promptTokens: 200 * turns,
    responseTokens: 24 * turns,
    conversation,
    finalState: { refunds: [1000] },
    expectedState: { refunds: [1000] },
    llmCalls,
  };
}

export function makeGroup(indexInStep: number, rewards: (number | null)[], turns = 2, split = "train"): GroupRecord {
  const scored = rewards.filter((r): r is number => r !== null);
  const mean = scored.length ? scored.reduce((s, v) => s + v, 0) / scored.length : null;
  return {
    split,
    indexInStep,
    taskId: `task-${indexInStep}`,
    task: { id: `task-${indexInStep}`, instructions: "Get a refund for the broken kettle." },
    rewardMean: mean,
    rewardStd: mean === null ? null : Math.sqrt(scored.reduce((s, v) => s + (v - mean) ** 2, 0) / scored.length),
    dropped: false,
    trajectories: rewards.map((reward, i) =>
      makeTrajectory({ indexInGroup: i, reward, turns, advantage: mean === null || reward === null ? null : reward - mean }),
    ),
  };
}

/** A step of `groups` × `groupSize` trajectories of `turns` turns (rewards vary within each group). */
export function makeStepRecord(step: number, groups = 2, groupSize = 2, turns = 2): StepRecord {
  const gs = Array.from({ length: groups }, (_, g) =>
    makeGroup(
      g,
      Array.from({ length: groupSize }, (_, i) => ((i + g + step) % 3) / 2),
      turns,
    ),
  );
  return {
    step,
    groups: gs,
    metrics: { "reward/mean": 0.5, "loss/policy": 0.1 },
    events: [{ level: "info", message: `step ${step} done` }],
  };
}
