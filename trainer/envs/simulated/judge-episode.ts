/**
 * The judgement that ends a simulated episode, in either simulator mode: the rendered judge prompt through
 * runJudge (the offline judge when no endpoint is configured), its agreement as a component, and the reasoning
 * with how the episode ended. The modes differ only in the prompt and in what they show as final state. With
 * `judge.mode: "simia"` the judgement is Simia-RL's instead (one call, its parse, its score, its reasoning verbatim).
 */
import type { EpisodeEndReason } from "../../../lib/conversation";
import { runJudge } from "../../judge/run-judge";
import { runSimiaJudge } from "../../judge/simia-judgement";
import type { EpisodeContext, Evaluation } from "../types";
import type { SimulatedEpisodeOptions } from "./episode";
import { offlineJudgeReply, type SimulatedState } from "./offline-simulators";
import type { SimulatedTaskData } from "./task-schema";

/**
 * A simulated episode's final state: the calls made as name and arguments (compared with the expected calls), and
 * beside them what each returned and the episode's bookkeeping.
 */
export function simulatedFinalState(state: SimulatedState, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    calls: state.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
    toolResults: state.calls.map((c) => ({ turn: c.turn, name: c.name, result: c.result })),
    formatErrors: state.formatErrors,
    ...extra,
  };
}

/**
 * The expected state beside it: the expected calls as name and arguments, like the final state's, which is what the
 * inspector compares; the canned results, facts to tell and forbidden calls are the judge's spec, shown beside.
 */
export function simulatedExpectedState(task: SimulatedTaskData): Record<string, unknown> {
  return { ...task.expected, calls: task.expected.calls.map(({ name, arguments: args }) => ({ name, arguments: args })) };
}

export async function judgeSimulatedEpisode(opts: {
  ctx: EpisodeContext;
  prompt: string;
  task: SimulatedTaskData;
  state: SimulatedState;
  judge: SimulatedEpisodeOptions["judge"];
  simiaSampling: SimulatedEpisodeOptions["simiaSampling"];
  endReason: EpisodeEndReason;
  finalState: unknown;
}): Promise<Evaluation> {
  const { judge, task, state } = opts;
  if (judge.mode === "simia") {
    const verdict = await runSimiaJudge({
      llm: opts.ctx.llm,
      messages: [{ role: "user", content: opts.prompt }],
      turn: state.policyTurns,
      offline: () => offlineJudgeReply(task, state, judge),
      params: opts.simiaSampling,
    });
    return {
      reward: verdict.reward,
      components: verdict.unparsable ? { judge_unparsable: 1 } : verdict.components,
      reasoning: verdict.reasoning,
      finalState: opts.finalState,
      expectedState: simulatedExpectedState(task),
    };
  }
  const result = await runJudge({
    llm: opts.ctx.llm,
    messages: [{ role: "user", content: opts.prompt }],
    turn: state.policyTurns,
    offline: () => offlineJudgeReply(task, state, judge),
    samples: judge.samples,
    maxAttempts: judge.maxAttempts,
    aggregate: judge.aggregate,
    unparsable: judge.unparsable,
  });
  const components = { ...result.components };
  if (result.agreement !== null) components.judge_agreement = result.agreement;
  return {
    reward: result.reward,
    components,
    reasoning: `${result.reasoning} (episode ended: ${opts.endReason})`,
    finalState: opts.finalState,
    expectedState: simulatedExpectedState(task),
  };
}
