/**
 * Function gym (UserRL FunctionGym): a hidden arithmetic rule maps four numbers to one. `[action] a b c d` reveals
 * the rule's output for any input except the test case, `[search] test` reveals the test case, `[answer] x` submits
 * the rule's output on the test case (reward 1 if within 1e-6, ending the episode). Entirely deterministic: no LLM
 * plays the user here, so feedback is attributed to "tool".
 */
import type { GymRules } from "./gym-episode";
import { applyRule } from "./arithmetic-rule";

export interface FunctionTask {
  rule: string;
  testCase: number[];
}

interface FunctionState {
  probes: number;
  wrongAnswers: number;
  solved: boolean;
}

const sameInput = (x: number[], y: number[]): boolean => x.length === y.length && x.every((v, i) => v === y[i]);

export const functionRules: GymRules<FunctionTask, FunctionState> = {
  kinds: ["action", "search", "answer"],
  // Probe once, read the test case, answer it (the script knows the rule; the probe shows the format).
  solution: (t) => ["[action] 1 2 3 4", "[search] test", `[answer] ${applyRule(t.rule, t.testCase)}`],
  instructions: () =>
    'A hidden function takes four numbers and returns one. Discover it by experiment: "[action] 1 2 3 4" shows ' +
    'the result for those four numbers; "[search] test" shows the test case; "[answer] <number>" submits the ' +
    'function\'s result on the test case. Stop with "[finish]".',
  opening: () => "New function loaded. Probe it with [action], get the test case with [search] test, then [answer].",
  initState: () => ({ probes: 0, wrongAnswers: 0, solved: false }),
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
        ? tool(`Test case: [${task.testCase.join(", ")}]`)
        : tool('Search only supports "[search] test", which shows the test case.');
    }
    if (kind === "action") {
      const numbers = (content.match(/-?\d+(\.\d+)?/g) ?? []).map(Number);
      if (numbers.length !== 4) return tool(`Please give exactly four numbers (got ${numbers.length}).`);
      if (sameInput(numbers, task.testCase)) return tool("That is the test case; its result is what you have to find.");
      state.probes++;
      try {
        return tool(`For numbers [${numbers.join(", ")}], the result is ${applyRule(task.rule, numbers)}.`);
      } catch (e) {
        return tool(`No result for [${numbers.join(", ")}]: ${(e as Error).message}. Try other numbers.`);
      }
    }
    const value = Number(content.replace(/[^\d.eE+-]/g, ""));
    if (content.trim() === "" || !Number.isFinite(value)) return tool("Your answer must be a single number.");
    if (Math.abs(value - applyRule(task.rule, task.testCase)) <= 1e-6) {
      const first = !state.solved;
      state.solved = true;
      return tool("Your answer is correct!", first ? 1 : 0, true);
    }
    state.wrongAnswers++;
    return tool("Your answer is wrong. Keep probing the function and try again.");
  },
  evaluate: (s, task) => ({
    reward: s.solved ? 1 : 0,
    components: { solved: s.solved ? 1 : 0, probes: s.probes, wrong_answers: s.wrongAnswers },
    reasoning: s.solved ? `Solved after ${s.probes} probe(s).` : `Not solved (${s.wrongAnswers} wrong answer(s)).`,
    expectedState: { rule: task.rule, testCase: task.testCase, result: applyRule(task.rule, task.testCase) },
  }),
};
