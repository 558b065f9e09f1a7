/**
 * The turn judge's verdict mapping against agent_gym's own `LLMJudge.evaluate` (tests/fixtures/parity/
 * agent-gym-judge.json, made by scripts/parity/agent_gym_judge_parity.py): every combination of 18 quality forms,
 * 20 tool-verdict forms and 25 argument-score forms in a judge reply scores what agent_gym scores it — "true" and
 * "1" are a right tool, scores outside 0–100 are clamped, a quality it does not know is "acceptable".
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseTurnVerdict, totalScore } from "./turn-judge";

const REPO = path.resolve(import.meta.dirname, "../../..");
const fx = JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity/agent-gym-judge.json"), "utf8")) as {
  absent: string;
  quality_forms: unknown[];
  tool_forms: unknown[];
  args_forms: unknown[];
  without_call: { quality: string; total: number }[];
  with_call_totals: number[][][];
};

/** The judge's JSON reply with these field forms (a field whose form is "<absent>" left out). */
function reply(fields: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries({ reasoning: "r", ...fields }).filter(([, v]) => v !== fx.absent)));
}

test("every verdict form scores what agent_gym scores it, with and without a service call", () => {
  let same = 0;
  let unscored = 0;
  const differ: string[] = [];
  const check = (text: string, withCall: boolean, want: number) => {
    const verdict = parseTurnVerdict(text, withCall);
    if (verdict === null) unscored++;
    const got = verdict ? totalScore(verdict) : null;
    if (got !== null && Math.abs(got - want) < 1e-9) same++;
    else if (differ.length < 5) differ.push(`${text}: ${got} vs agent_gym ${want}`);
  };
  fx.quality_forms.forEach((quality, q) => check(reply({ quality }), false, fx.without_call[q].total));
  fx.quality_forms.forEach((quality, q) =>
    fx.tool_forms.forEach((correct_tool, t) =>
      fx.args_forms.forEach((correct_args, a) => check(reply({ quality, correct_tool, correct_args }), true, fx.with_call_totals[q][t][a])),
    ),
  );
  const total = fx.quality_forms.length * (1 + fx.tool_forms.length * fx.args_forms.length);
  assert.equal(same, total, `${same} of ${total} forms score as agent_gym's, ${unscored} unscored; e.g. ${differ.join(" | ")}`);
});

test("a reply with no JSON object in it is still unreadable (retried, then the episode unscored), never a silent score", () => {
  assert.equal(parseTurnVerdict("The turn was good.", false), null);
  assert.equal(parseTurnVerdict("", true), null);
});
