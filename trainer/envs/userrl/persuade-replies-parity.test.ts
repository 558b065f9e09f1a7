/**
 * The simulated user's replies read as PersuadeGym reads them (tests/fixtures/parity/userrl-persuade-replies.json,
 * made by scripts/parity/userrl_persuade_replies_parity.py with UserRL's own `evaluate_action`): every reply UserRL
 * reads with a stance on its scale gives the same response, stance and turn reward here; the rest fall only into the
 * differences docs/environments/userrl.md keeps, with their reasons.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parsePersuadeeReply, persuasionReward, STANCES, type Stance } from "./persuade";

const cases = JSON.parse(readFileSync(new URL("../../../tests/fixtures/parity/userrl-persuade-replies.json", import.meta.url), "utf8")) as {
  held: Stance;
  reply: string;
  feedback: string;
  stance: string;
  reward: number;
  ok: boolean;
}[];

test("PersuadeGym's user replies: what UserRL reads scores alike; the kept differences are the documented ones", () => {
  const kinds: Record<string, number> = {};
  const differ: string[] = [];
  for (const c of cases) {
    const ours = parsePersuadeeReply(c.reply);
    const onScale = (STANCES as readonly string[]).includes(c.stance);
    let kind: string;
    if (c.ok && onScale) {
      kind = "read alike";
      if (!ours || ours.response !== c.feedback || ours.stance !== c.stance || persuasionReward(c.held, ours.stance) !== c.reward)
        differ.push(`${JSON.stringify(c.reply)} held ${c.held}: UserRL ${c.stance} ${c.reward} | ours ${JSON.stringify(ours)}`);
    } else if (c.ok) kind = ours ? "stance off UserRL's scale, matched by case here" : "stance off any scale: asked again here";
    else kind = ours ? "unreadable to UserRL (prose, true/null), read here" : "unreadable to both: asked again here";
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  console.log(JSON.stringify(kinds));
  assert.deepEqual(differ, []);
  assert.equal(kinds["read alike"], cases.filter((c) => c.ok && (STANCES as readonly string[]).includes(c.stance)).length);
});
