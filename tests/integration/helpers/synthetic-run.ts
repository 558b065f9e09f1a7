/**
 * A synthetic run for service and API tests (never shown to users: the demo on a fresh install is a real run the
 * worker trains, server/seed/demo.ts): 60 steps of metrics, GRPO groups with multi-turn trajectories (simulated-user
 * turns, tool calls, judge reasoning, unscored samples) and their LLM calls, written straight to the database.
 * Deterministic (seeded), so tests can rely on its shape without training anything.
 */
import { randomUUID } from "node:crypto";
import type { ConversationMessage, LlmCallRecord, LlmRole } from "../../../lib/conversation";
import { parseRunConfig } from "../../../lib/run-config";
import type { PrismaClient } from "../../../db/client";
import { rebuildMetricRollups } from "../../../db/metric-rollups";
import type { Prisma } from "../../../generated/prisma/client";
import { mulberry32 } from "../../../lib/seeded-random";

export const SYNTHETIC_RUN_NAME = "synthetic fixture · airline rebooking";
const STEPS = 60;
const GROUP_STEPS = [0, 10, 20, 30, 40, 50, 59];
const GROUPS_PER_STEP = 4;
const GROUP_SIZE = 4;

const TASKS = [
  { id: "airline-rebook-001", pnr: "QX7K2M", from: "Tuesday", to: "Friday", name: "Dana Whitfield" },
  { id: "airline-rebook-002", pnr: "LM3P9Z", from: "Monday", to: "Wednesday", name: "Arjun Mehta" },
  { id: "airline-baggage-003", pnr: "TR8N4C", from: "Sunday", to: "Sunday", name: "Sofia Lindqvist" },
  { id: "airline-rebook-004", pnr: "BV5H1D", from: "Thursday", to: "Saturday", name: "Kwame Mensah" },
];

interface Built {
  conversation: ConversationMessage[];
  /** The day the reservation ended up on (the final environment state). */
  finalDay: string;
  calls: LlmCallRecord[];
  reward: number | null;
  components: Record<string, number>;
  reasoning: string;
  status: "ok" | "truncated" | "unscored";
  endReason: string;
}

function call(
  role: LlmRole,
  turn: number,
  prompt: string,
  text: string,
  latencyMs: number,
  at: Date,
  error: string | null = null,
  attempt = 1,
): LlmCallRecord {
  const promptTokens = Math.ceil(prompt.length / 4);
  const completionTokens = Math.ceil(text.length / 4);
  return {
    id: randomUUID(),
    role,
    model: "offline",
    endpoint: "offline",
    request: { messages: [{ role: "system", content: prompt }], params: { temperature: 0 } },
    response: error ? null : { text, finishReason: "stop" },
    latencyMs,
    promptTokens,
    completionTokens,
    costUsd: 0,
    attempt,
    error,
    cached: false,
    turn,
    startedAt: at.toISOString(),
  };
}

/** One episode; `skill` in [0,1] drives how well the policy does (it rises with training step). */
function buildEpisode(task: (typeof TASKS)[number], skill: number, rand: () => number, at: Date): Built {
  const conv: ConversationMessage[] = [];
  const calls: LlmCallRecord[] = [];
  const say = (m: ConversationMessage) => conv.push(m);
  say({
    role: "system",
    source: "system",
    turn: 0,
    content:
      "You are an airline support agent. Tools: get_reservation(pnr), change_flight(pnr, day), add_bag(pnr). Follow the policy; confirm before changing anything.",
  });
  const opening = `Hi, this is ${task.name}. I need to move my flight ${task.pnr} from ${task.from} to ${task.to}.`;
  const c0 = call(
    "user_simulator",
    0,
    `You are ${task.name}. Goal: move ${task.pnr} to ${task.to}.`,
    opening,
    180 + Math.round(rand() * 120),
    at,
  );
  calls.push(c0);
  say({ role: "user", source: "user_simulator", turn: 0, content: opening, llmCallIds: [c0.id] });

  const looksUp = rand() < 0.4 + 0.6 * skill;
  const changesRight = rand() < 0.25 + 0.7 * skill;
  let turn = 0;
  if (looksUp) {
    say({
      role: "assistant",
      source: "policy",
      turn,
      content: "Let me look that up.",
      toolCalls: [{ id: `call_${turn}`, name: "get_reservation", arguments: { pnr: task.pnr } }],
      tokens: 24,
    });
    const result = JSON.stringify({ pnr: task.pnr, passenger: task.name, day: task.from, fare: "flex", status: "confirmed" });
    const c = call(
      "tool_simulator",
      turn,
      "Simulate get_reservation consistently with the task.",
      result,
      150 + Math.round(rand() * 100),
      at,
    );
    calls.push(c);
    say({
      role: "tool",
      source: "tool_simulator",
      turn,
      name: "get_reservation",
      toolCallId: `call_${turn}`,
      content: result,
      llmCallIds: [c.id],
    });
    turn++;
  }
  const day = changesRight ? task.to : task.from === "Monday" ? "Tuesday" : "Monday";
  say({
    role: "assistant",
    source: "policy",
    turn,
    content: `I'll move it to ${day}.`,
    toolCalls: [{ id: `call_${turn}`, name: "change_flight", arguments: { pnr: task.pnr, day } }],
    tokens: 31,
  });
  const changed = JSON.stringify({ pnr: task.pnr, day, status: "changed", fee: 0 });
  const c1 = call(
    "tool_simulator",
    turn,
    "Simulate change_flight consistently with earlier answers.",
    changed,
    160 + Math.round(rand() * 90),
    at,
  );
  calls.push(c1);
  say({
    role: "tool",
    source: "tool_simulator",
    turn,
    name: "change_flight",
    toolCallId: `call_${turn}`,
    content: changed,
    llmCallIds: [c1.id],
  });
  turn++;
  say({ role: "assistant", source: "policy", turn, content: `Your flight ${task.pnr} is now on ${day}. Anything else?`, tokens: 18 });
  const reply = changesRight ? "Perfect, that's all I needed. ###STOP###" : `That's not right, I asked for ${task.to}.`;
  const c2 = call("user_simulator", turn, "Continue as the customer.", reply, 170 + Math.round(rand() * 110), at);
  calls.push(c2);
  say({ role: "user", source: "user_simulator", turn, content: reply, llmCallIds: [c2.id] });

  // A few judge calls fail to parse, are retried, and one in ~30 stays unscored: the demo shows all three cases.
  const judgeFails = rand() < 0.08;
  if (judgeFails)
    calls.push(
      call("judge", turn, "Judge the episode. Reply with JSON.", "", 900, at, "judge reply was not valid JSON: Unexpected token 'T'", 1),
    );
  const unscored = judgeFails && rand() < 0.4;
  if (unscored) {
    calls.push(
      call("judge", turn, "Judge the episode. Reply with JSON.", "", 950, at, "judge reply was not valid JSON after 2 attempts", 2),
    );
    return {
      conversation: conv,
      calls,
      finalDay: day,
      reward: null,
      components: {},
      reasoning: "",
      status: "unscored",
      endReason: "user_done",
    };
  }
  const goal = changesRight ? 1 : 0;
  const verified = looksUp ? 1 : 0;
  const reasoning = changesRight
    ? looksUp
      ? `The agent first retrieved reservation ${task.pnr} and then moved it to ${task.to} as requested. The user confirmed the goal was met.`
      : `The agent moved ${task.pnr} to ${task.to} as requested, but without retrieving the reservation first. The user confirmed the goal was met.`
    : `The agent changed ${task.pnr} to ${day}, but the user asked for ${task.to}; the goal was not met.`;
  const judgeText = JSON.stringify({ reward: goal, reasoning });
  calls.push(
    call("judge", turn, "Judge the episode. Reply with JSON.", judgeText, 600 + Math.round(rand() * 400), at, null, judgeFails ? 2 : 1),
  );
  return {
    conversation: conv,
    calls,
    finalDay: day,
    reward: goal * (0.8 + 0.2 * verified),
    components: { goal, verified_reservation: verified },
    reasoning,
    status: "ok",
    endReason: changesRight ? "user_done" : "max_turns",
  };
}

function metricRows(runId: string, start: Date, rand: () => number): Prisma.MetricPointCreateManyInput[] {
  const rows: Prisma.MetricPointCreateManyInput[] = [];
  for (let step = 0; step < STEPS; step++) {
    const progress = step / (STEPS - 1);
    const noise = () => (rand() - 0.5) * 0.1;
    const reward = 0.25 + 0.6 * (1 - Math.exp(-3 * progress)) + noise();
    const wallTime = new Date(start.getTime() + step * 42_000);
    const m: Record<string, number> = {
      "reward/mean": reward,
      "reward/std": 0.35 - 0.15 * progress + noise() / 3,
      "reward/goal": reward + 0.05,
      "reward/verified_reservation": 0.4 + 0.5 * progress + noise(),
      "adv/mean": noise() / 10,
      "loss/policy": -0.02 + noise() / 5,
      kl: 0.002 + 0.01 * progress + Math.abs(noise()) / 50,
      entropy: 1.9 - 0.8 * progress + noise(),
      "clip/frac_high": 0.03 + Math.abs(noise()) / 5,
      "response/length_mean": 48 + 12 * progress + noise() * 30,
      "env/turns_mean": 3.2 - 0.6 * progress + noise(),
      "env/unscored": rand() < 0.1 ? 1 : 0,
      "llm/calls": 64 + Math.round(noise() * 20),
      "llm/latency_p50_ms": 210 + noise() * 100,
      "llm/latency_p95_ms": 820 + noise() * 300,
      "llm/cost_usd": 0,
      "time/rollout_s": 24 + noise() * 20,
      "time/update_s": 11 + noise() * 5,
      "time/checkpoint_s": step % 10 === 9 ? 1.4 : 0,
    };
    if (step % 10 === 9) {
      m["eval/reward_mean"] = reward - 0.05 + noise();
      m["eval/pass@1"] = reward - 0.1;
    }
    for (const [key, value] of Object.entries(m)) rows.push({ runId, key, step, value, wallTime });
  }
  return rows;
}

export async function insertSyntheticRun(db: PrismaClient): Promise<string> {
  const rand = mulberry32(20261122);
  const config = parseRunConfig({
    name: SYNTHETIC_RUN_NAME,
    tags: ["demo", "airline"],
    seed: 7,
    environment: "simulated",
    grpo: { steps: STEPS, groupsPerStep: GROUPS_PER_STEP, groupSize: GROUP_SIZE },
  });
  const start = new Date(Date.now() - STEPS * 42_000 - 60_000);
  const run = await db.run.create({
    data: {
      name: SYNTHETIC_RUN_NAME,
      status: "succeeded",
      config: config as unknown as Prisma.InputJsonValue,
      environment: config.environment,
      policyModel: config.policy.model,
      seed: config.seed,
      totalSteps: STEPS,
      step: STEPS,
      tags: config.tags,
      launchedBy: "api",
      launchedByName: "test fixture",
      backend: "wasm (demo data)",
      createdAt: start,
      startedAt: start,
      finishedAt: new Date(start.getTime() + STEPS * 42_000),
    },
  });
  await db.metricPoint.createMany({ data: metricRows(run.id, start, rand) });
  await rebuildMetricRollups(db, run.id);
  for (const step of GROUP_STEPS) {
    const at = new Date(start.getTime() + step * 42_000);
    const skill = step / (STEPS - 1);
    for (let g = 0; g < GROUPS_PER_STEP; g++) {
      const task = TASKS[g % TASKS.length];
      const episodes = Array.from({ length: GROUP_SIZE }, () => buildEpisode(task, skill, rand, at));
      const scored = episodes.map((e) => e.reward).filter((r): r is number => r !== null);
      const mean = scored.reduce((a, b) => a + b, 0) / Math.max(1, scored.length);
      const std = Math.sqrt(scored.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, scored.length - 1));
      const group = await db.group.create({
        data: { runId: run.id, step, indexInStep: g, taskId: task.id, task, rewardMean: mean, rewardStd: std, createdAt: at },
      });
      const trajIds = episodes.map(() => randomUUID());
      await db.trajectory.createMany({
        data: episodes.map((e, i) => ({
          id: trajIds[i],
          groupId: group.id,
          runId: run.id,
          step,
          taskId: task.id,
          indexInGroup: i,
          reward: e.reward,
          rewardComponents: e.components,
          advantage: e.reward === null ? 0 : (e.reward - mean) / (std + 1e-6),
          reasoning: e.reasoning || null,
          status: e.status,
          endReason: e.endReason,
          numTurns: e.conversation.filter((m) => m.source === "policy").length,
          promptTokens: 180,
          responseTokens: e.conversation.reduce((s, m) => s + (m.tokens ?? 0), 0),
          conversation: e.conversation as unknown as Prisma.InputJsonValue,
          finalState: { reservation: { pnr: task.pnr, day: e.finalDay } },
          expectedState: { reservation: { pnr: task.pnr, day: task.to } },
          createdAt: at,
        })),
      });
      await db.llmCall.createMany({
        data: episodes.flatMap((e, i) =>
          e.calls.map((c) => ({
            ...c,
            runId: run.id,
            trajectoryId: trajIds[i],
            startedAt: new Date(c.startedAt),
            request: c.request as unknown as Prisma.InputJsonValue,
            response: (c.response ?? undefined) as Prisma.InputJsonValue | undefined,
          })),
        ),
      });
    }
  }
  await db.checkpoint.createMany({
    data: [29, 59].map((step) => ({ runId: run.id, step, location: `.data/checkpoints/demo/step-${step}`, sizeBytes: BigInt(3_612_672) })),
  });
  await db.runEvent.createMany({
    data: [
      { runId: run.id, level: "info", message: "Run claimed by worker demo-seed", createdAt: start },
      { runId: run.id, level: "info", message: "Backend: wasm (demo data)", createdAt: start },
      {
        runId: run.id,
        level: "warn",
        message: "Judge reply for 1 trajectory could not be parsed after 2 attempts; left unscored",
        step: 20,
        createdAt: start,
      },
      {
        runId: run.id,
        level: "info",
        message: `Finished ${STEPS} steps`,
        step: STEPS - 1,
        createdAt: new Date(start.getTime() + STEPS * 42_000),
      },
    ],
  });
  const last = await db.metricPoint.findUnique({ where: { runId_key_step: { runId: run.id, key: "reward/mean", step: STEPS - 1 } } });
  await db.run.update({ where: { id: run.id }, data: { latestReward: last?.value ?? null } });
  return run.id;
}
