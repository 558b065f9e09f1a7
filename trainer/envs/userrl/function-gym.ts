/**
 * Function gym (UserRL FunctionGym): a hidden arithmetic rule maps four numbers to one. `[action] a b c d` reveals
 * the rule's output for any input except the test case, `[search] test` reveals the test case, `[answer] x` submits
 * the rule's output on the test case (reward 1 if within 1e-6, ending the episode). Entirely deterministic: no LLM
 * plays the user here, so feedback is attributed to "tool".
 *
 * As FunctionGym reads and answers them: a probe's numbers are every `-?\d+\.?\d*` in the text, taken as Python
 * floats, so the rule runs in float arithmetic and its result, rounded to 4 places, prints as Python prints it
 * (`For numbers [1.0, 2.0, 3.0, 4.0], the result is 10.0.`); an answer must be what Python's `float()` reads
 * ("42", " 4.2e1 ", "inf"; not "42 points"); the test case and the expected result print as Python prints them.
 */
import type { GymRules } from "./gym-episode";
import { applyRule, asPythonNumbers, ruleValue } from "./arithmetic-rule";
import { parsePythonFloat, pythonNumberStr, pythonRoundNumber } from "../../../lib/python-arithmetic";
import { pythonFloatRepr } from "../../../lib/python-json";

export interface FunctionTask {
  rule: string;
  testCase: number[];
}

interface FunctionState {
  probes: number;
  wrongAnswers: number;
  solved: boolean;
}

/** The rule on the test case, as UserRL's data stores it (`expected_result`, a float computed on the int inputs). */
const expectedResult = (t: FunctionTask): number => Number(ruleValue(t.rule, asPythonNumbers(t.testCase)));

const sameInput = (x: number[], y: number[]): boolean => x.length === y.length && x.every((v, i) => v === y[i]);

/** Python's repr of a list of floats / of ints. */
const floatList = (xs: number[]) => `[${xs.map((x) => pythonNumberStr(x)).join(", ")}]`;
const intList = (xs: number[]) => `[${asPythonNumbers(xs).map(pythonNumberStr).join(", ")}]`;

function probe(task: FunctionTask, content: string): string {
  if (!content) return "Please provide four numbers after [action].";
  const numbers = (content.match(/-?\d+\.?\d*/g) ?? []).map(Number);
  if (numbers.length !== 4) return "Please provide exactly four numbers.";
  if (sameInput(numbers, task.testCase)) return "This is the test case and I cannot provide you with the calculation feedback.";
  try {
    const result = pythonRoundNumber(ruleValue(task.rule, numbers), 4);
    return `For numbers ${floatList(numbers)}, the result is ${pythonNumberStr(result)}.`;
  } catch {
    return "Error parsing numbers or calculating result. This may happen like when division by zero occurs. Please try again with different number combinations.";
  }
}

export const functionRules: GymRules<FunctionTask, FunctionState> = {
  kinds: ["action", "search", "answer"],
  stepPenalty: "per-step",
  normalizeRewards: false,
  // Probe once, read the test case, answer it (the script knows the rule; the probe shows the format).
  solution: (t) => ["[action] 1 2 3 4", "[search] test", `[answer] ${applyRule(t.rule, t.testCase)}`],
  instructions: () =>
    'A hidden function takes four numbers and returns one. Discover it by experiment: "[action] 1 2 3 4" shows ' +
    'the result for those four numbers; "[search] test" shows the test case; "[answer] <number>" submits the ' +
    'function\'s result on the test case. Stop with "[finish]".',
  opening: () => "New function loaded. Probe it with [action], get the test case with [search] test, then [answer].",
  initState: () => ({ probes: 0, wrongAnswers: 0, solved: false }),
  finishFeedback: (s, t) =>
    s.solved
      ? "Episode finished. You answered correctly!"
      : `Episode finished without correct answer. The expected result for the test case was: ${pythonFloatRepr(expectedResult(t))}`,
  async onAction(kind, content, state, task) {
    const tool = (feedback: string, turnReward = 0, done = false) => ({
      feedback,
      source: "tool" as const,
      turnReward,
      done,
      endReason: "agent_finished" as const,
    });
    if (kind === "search") {
      return content.toLowerCase() === "test"
        ? tool(`Test case: ${intList(task.testCase)}`)
        : tool("Search content should only be 'test' to get the test case.");
    }
    if (kind === "action") {
      const feedback = probe(task, content);
      if (feedback.startsWith("For numbers")) state.probes++;
      return tool(feedback);
    }
    if (!content) return tool("Answer is empty. Please provide a numerical answer.");
    const value = parsePythonFloat(content);
    if (value === null) return tool("Invalid numerical answer. Please provide a valid number.");
    if (Math.abs(value - expectedResult(task)) <= 1e-6) {
      const first = !state.solved;
      state.solved = true;
      return tool("Your answer is correct!", first ? 1 : 0, true);
    }
    state.wrongAnswers++;
    return tool("Your answer is wrong. Please continue to try and reason about the hidden function and make your answer attempt later.");
  },
  evaluate: (s, task) => ({
    reward: s.solved ? 1 : 0,
    components: { solved: s.solved ? 1 : 0, probes: s.probes, wrong_answers: s.wrongAnswers },
    reasoning: s.solved ? `Solved after ${s.probes} probe(s).` : `Not solved (${s.wrongAnswers} wrong answer(s)).`,
    expectedState: { rule: task.rule, testCase: task.testCase, result: expectedResult(task) },
  }),
};
