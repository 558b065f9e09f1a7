/**
 * The judgement that ends a simulated episode, in either simulator mode: the rendered judge prompt through
 * runJudge (the offline judge when no endpoint is configured), its agreement as a component, and the reasoning
 * with how the episode ended. The modes differ only in the prompt and in what they show as final state.
 */
import type { EpisodeEndReason } from "../../../lib/conversation";
import { runJudge } from "../../judge/run-judge";
import type { EpisodeContext, Evaluation } from "../types";
import type { SimulatedEpisodeOptions } from "./episode";
import { offlineJudgeReply, type SimulatedState } from "./offline-simulators";
import type { SimulatedTaskData } from "./task-schema";

export async function judgeSimulatedEpisode(opts: {
  ctx: EpisodeContext;
  prompt: string;
  task: SimulatedTaskData;
  state: SimulatedState;
  judge: SimulatedEpisodeOptions["judge"];
  endReason: EpisodeEndReason;
  finalState: unknown;
}): Promise<Evaluation> {
  const { judge, task, state } = opts;
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
    expectedState: task.expected,
  };
}
