/**
 * The run-health figures read from the real database: "of policy turns could not be parsed" counts the policy's
 * unparsable turns over the policy's turns (the environment's reply to such a turn carries the same formatError and
 * must not count twice), and a run that began with SFT warm-up is not told to add one.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { ConversationMessage } from "../../lib/conversation";
import type { Prisma } from "../../generated/prisma/client";
import { getRunHealth } from "../../server/services/run-health";
import { insertQueuedRun } from "../../trainer/record/testing/make-run";
import { createTestDatabase, type TestDatabase } from "./helpers/db";

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase("health_ratio");
});
after(async () => db?.drop());

/** An episode of `turns` policy turns, the first `bad` of them unparsable, each answered by the environment as it is. */
function episode(turns: number, bad: number): ConversationMessage[] {
  const out: ConversationMessage[] = [{ role: "user", source: "user_simulator", content: "Book me a flight.", turn: 0 }];
  for (let turn = 0; turn < turns; turn++) {
    const error = turn < bad ? "parse_error: no tool call or reply found" : undefined;
    out.push({ role: "assistant", source: "policy", content: error ? "{{{" : "Done.", turn, ...(error ? { formatError: error } : {}) });
    out.push({
      role: "user",
      source: error ? "environment" : "user_simulator",
      content: error ? "Could not parse." : "Thanks.",
      turn,
      ...(error ? { formatError: error } : {}),
    });
  }
  return out;
}

async function runWith(sftWarmupSteps: number, turnsAndBad: [number, number][]): Promise<string> {
  const runId = await insertQueuedRun(db.prisma, { environment: "guess-number", grpo: { steps: 4, sftWarmupSteps } });
  for (const step of [0, 1, 2]) {
    const group = await db.prisma.group.create({ data: { runId, step, indexInStep: 0, taskId: "t" } });
    await db.prisma.trajectory.createMany({
      data: turnsAndBad.map(([turns, bad], i) => ({
        groupId: group.id,
        runId,
        step,
        taskId: "t",
        indexInGroup: i,
        reward: i / 10,
        status: "ok" as const,
        endReason: "max_turns",
        numTurns: turns,
        conversation: episode(turns, bad) as unknown as Prisma.InputJsonValue,
      })),
    });
  }
  return runId;
}

test("3 of 4 policy turns unparsable reads 75%, not 150%, and a run without warm-up is told to add one", async () => {
  const runId = await runWith(0, [
    [2, 2],
    [2, 1],
  ]);
  const { problems } = await getRunHealth(db.prisma, { runId });
  const format = problems.find((p) => p.kind === "format_failure");
  assert.ok(format, JSON.stringify(problems));
  assert.match(format.detail, /^75% of policy turns could not be parsed/);
  assert.match(format.detail, /An SFT warm-start on demonstrations/);
});

test("half the turns unparsable is not 'most' (it read 100% when both messages counted)", async () => {
  const runId = await runWith(0, [
    [4, 2],
    [2, 1],
  ]);
  const { problems } = await getRunHealth(db.prisma, { runId });
  assert.deepEqual(
    problems.map((p) => p.kind),
    [],
  );
});

test("a run that began with 40 warm-up steps is not advised to warm up", async () => {
  const runId = await runWith(40, [
    [2, 2],
    [2, 2],
  ]);
  const { problems } = await getRunHealth(db.prisma, { runId });
  const format = problems.find((p) => p.kind === "format_failure")!;
  assert.match(format.detail, /^100% of policy turns/);
  assert.match(format.detail, /already began with 40 SFT warm-up steps/);
  assert.doesNotMatch(format.detail, /An SFT warm-start/);
});
