import { test } from "node:test";
import assert from "node:assert/strict";
import type { ConversationMessage } from "../../../lib/conversation";
import { parseRunConfig } from "../../../lib/run-config";
import { multiTurnTokenAdvantages, turnRewardsOf } from "./turn-credit";

const policy = (turn: number, turnReward?: number): ConversationMessage => ({
  role: "assistant",
  source: "policy",
  turn,
  content: "x",
  turnReward,
});
const user = (turn: number): ConversationMessage => ({ role: "user", source: "user_simulator", turn, content: "y" });

test("per-turn rewards come from the environment; a final-only reward lands on the last turn; unscored stays null", () => {
  assert.deepEqual(turnRewardsOf([user(0), policy(0, 0.2), user(1), policy(1, 0.5)], 0.7), [0.2, 0.5]);
  assert.deepEqual(turnRewardsOf([user(0), policy(0), user(1), policy(1)], 1), [0, 1]);
  assert.equal(turnRewardsOf([user(0), policy(0, 1)], null), null);
});

test("with R2G credit the better trajectory's turns get positive advantages and prompt tokens none", () => {
  const config = parseRunConfig({ grpo: { turnCredit: "r2g", trajectoryScore: "sum", gamma: 0.9 } });
  const mask = [0, 1, 1, 0, 1, 1];
  const ids = [-1, 0, 0, -1, 1, 1];
  const [[good, bad]] = multiTurnTokenAdvantages(config, [
    [
      { lossMask: mask, tokenTurnIds: ids, turnRewards: [1, 1] },
      { lossMask: mask, tokenTurnIds: ids, turnRewards: [0, 0] },
    ],
  ]);
  assert.equal(good[0], 0);
  assert.equal(good[3], 0);
  assert.ok(good[1] > 0 && good[4] > 0, `good turns positive: ${good}`);
  assert.ok(bad[1] <= 0 && bad[4] <= 0, `bad turns non-positive: ${bad}`);
  assert.notEqual(good[1], good[4], "reward-to-go gives the two turns different credit");
});
