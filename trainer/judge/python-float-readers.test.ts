/**
 * Every place a seed system calls Python's float() on model text reads numbers as float() does, Unicode digits
 * included (lib/python-values.ts, checked against python3 in python-values.test.ts): Simia-RL's judge reward
 * (`float(result["reward"])`) and agent_gym's argument score (`float(correct_args) / 100`). A judge that answers in
 * Arabic-Indic or full-width digits gets the score the original system gives it, not "unscored" or a default 0.5.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { simiaVerdict } from "./simia-judgement";
import { parseTurnVerdict } from "../envs/sgd/turn-judge";
import { parsePythonFloat } from "../../lib/python-arithmetic";

test("Simia's judge reward in Unicode digits is the number Python's float() reads", () => {
  assert.equal(simiaVerdict('{"reward": "\u0661", "reasoning": "ok"}').reward, 1); // Arabic-Indic one
  assert.equal(simiaVerdict('{"reward": "\u0660.\u0665"}').reward, 0.5);
  assert.equal(simiaVerdict('{"reward": "\uff10.\uff17\uff15\u3000"}').reward, 0.75); // full-width, ideographic space
  // Python raises on these, which stops Simia's run: unscored here, never a silent 0.
  assert.equal(simiaVerdict('{"reward": "\u0661\u066b\u0665"}').reward, null); // Arabic decimal separator
  assert.equal(simiaVerdict('{"reward": "\u00b2"}').reward, null); // superscript two is not a decimal digit
});

test("agent_gym's correct_args in Unicode digits is float(text) / 100, not the 0.5 of an unreadable score", () => {
  const read = (args: string) => parseTurnVerdict(JSON.stringify({ quality: "good", correct_tool: "yes", correct_args: args }), true)!;
  assert.equal(read("\u0667\u0665").toolArgs, 0.75); // "٧٥"
  assert.equal(read("\u0968\u0966").toolArgs, 0.2); // Devanagari "२०"
  assert.equal(read(" 1_0 ").toolArgs, 0.1);
  assert.equal(read("\x1c80").toolArgs, 0.5); // float() keeps ASCII U+001C (strip() would not), so it raises: 0.5
  assert.equal(read("\u0661\u0660\u0660\u0660").toolArgs, 1); // clamped
});

test("FunctionGym's answer reader is the same float(): Unicode digits read, ASCII control characters raise", () => {
  assert.equal(parsePythonFloat("\u0664\u0662"), 42); // "٤٢"
  assert.equal(parsePythonFloat("\u2003-4.2e1\u2003"), -42);
  assert.equal(parsePythonFloat("\x1c42"), null);
  assert.equal(parsePythonFloat("25.0 points"), null);
});
