/**
 * Reward-hacking / simulator-failure warnings and component analysis on the real PostgreSQL: the demo run plus a
 * hand-made step whose judge passed an episode the final state fails, whose simulated user left after one turn, and
 * whose simulator calls failed only in low-reward episodes.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createCaller } from "../../server/api/root";
import { createTrpcContext } from "../../server/api/trpc";
import { insertSyntheticRun } from "./helpers/synthetic-run";
import { createTestDatabase, type TestDatabase } from "./helpers/db";

let db: TestDatabase;
let runId: string;
let caller: ReturnType<typeof createCaller>;
const ids: string[] = [];

before(async () => {
  db = await createTestDatabase("rl_test_signals");
  runId = await insertSyntheticRun(db.prisma);
  caller = createCaller(createTrpcContext(db.prisma));
  const group = await db.prisma.group.create({ data: { runId, step: 61, indexInStep: 0, taskId: "hand-made" } });
  const rows = [
    {
      reward: 1,
      finalState: { reservation: { day: "Monday" } },
      endReason: "agent_finished",
      numTurns: 3,
      text: "I changed it, trust me, all done and confirmed for you.",
    },
    {
      reward: 0,
      finalState: { reservation: { day: "Friday" } },
      endReason: "user_done",
      numTurns: 1,
      text: "Which booking do you mean? Please give the code.",
    },
    {
      reward: 0,
      finalState: { reservation: { day: "Monday" } },
      endReason: "max_turns",
      numTurns: 5,
      text: "Let me look that up for you right now in the system.",
    },
    {
      reward: 0,
      finalState: { reservation: { day: "Monday" } },
      endReason: "max_turns",
      numTurns: 5,
      text: "Sorry, the tool failed; could you repeat the request again?",
    },
  ];
  for (const [i, r] of rows.entries()) {
    const id = randomUUID();
    ids.push(id);
    await db.prisma.trajectory.create({
      data: {
        id,
        groupId: group.id,
        runId,
        step: 61,
        taskId: "hand-made",
        indexInGroup: i,
        reward: r.reward,
        status: "ok",
        endReason: r.endReason,
        numTurns: r.numTurns,
        rewardComponents: { goal: r.reward, format: 1 - r.reward },
        conversation: [{ role: "assistant", source: "policy", turn: 0, content: r.text }],
        finalState: r.finalState,
        expectedState: { reservation: { day: "Friday" } },
      },
    });
    if (r.reward === 0 && i >= 2) {
      await db.prisma.llmCall.create({
        data: {
          id: randomUUID(),
          runId,
          trajectoryId: id,
          role: "user_simulator",
          model: "m",
          endpoint: "e",
          request: {},
          latencyMs: 1,
          error: "HTTP 500",
          startedAt: new Date(),
        },
      });
    }
  }
});
after(async () => {
  await db?.drop();
});

test("warnings name the step and link the offending trajectories", async () => {
  const { groups, total, trajectoriesAnalysed } = await caller.signals.warnings({ runId });
  assert.ok(trajectoriesAnalysed > 100);
  assert.equal(
    groups.reduce((n, g) => n + g.count, 0),
    total,
  );
  assert.equal(new Set(groups.map((g) => g.kind)).size, groups.length, "one group per kind");
  const at = (kind: string) => groups.find((g) => g.kind === kind)?.latest.find((s) => s.step === 61);
  assert.deepEqual(at("judge_high_check_fails")?.examples, [ids[0]], "judge passed, state check failed");
  assert.deepEqual(at("judge_low_check_passes")?.examples, [ids[1]]);
  assert.deepEqual(at("abnormal_ending")?.examples, [ids[1]], "the simulated user left after one agent turn");
  assert.deepEqual(at("simulator_errors_in_low_reward")?.examples, [ids[2], ids[3]]);
  // The demo's late steps: every sample in a group says the same thing (GRPO learns nothing there).
  const nearIdentical = groups.find((g) => g.kind === "near_identical_group");
  assert.ok(nearIdentical?.stepRanges.some(([a, b]) => a <= 59 && 59 <= b));
});

test("component analysis: curves per step, correlations with the reward, and trajectories where components disagree", async () => {
  const a = await caller.signals.components({ runId });
  assert.deepEqual(a.components, ["format", "goal", "verified_reservation"]);
  const s30 = a.steps.find((s) => s.step === 30);
  assert.ok(s30 && s30.means.goal !== null && s30.means.goal > 0 && s30.means.goal <= 1);
  assert.ok(
    (a.correlations.goal ?? 0) > (a.correlations.verified_reservation ?? 0),
    "the goal drives the reward more than the verification",
  );
  assert.ok(a.disagreements.some((d) => d.high.includes("goal") && d.low.includes("verified_reservation")));
});
