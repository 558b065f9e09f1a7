/** Test helper: plays scripted policy messages through a gym episode and scores it (offline LLM by default). */
import type { EpisodeEndReason } from "../../../../lib/conversation";
import type { Environment, LlmChat, StepResult, Task } from "../../types";

export const offlineLlm: LlmChat = { chat: async (req) => ({ text: req.offline ? await req.offline() : "", callId: `c${Math.random()}` }) };

export async function playGym<T>(env: Environment<T>, task: Task<T>, actions: string[], llm: LlmChat = offlineLlm, maxTurns = 20) {
  const ep = env.createEpisode(task, { seed: 1, llm, maxTurns });
  const opening = await ep.reset();
  const steps: StepResult[] = [];
  let end: EpisodeEndReason = "max_turns";
  for (const [turn, a] of actions.entries()) {
    const r = await ep.step(a, turn);
    steps.push(r);
    if (r.done) {
      end = r.endReason!;
      break;
    }
  }
  return { opening, steps, turnRewards: steps.map((s) => s.turnReward ?? 0), end, evaluation: await ep.evaluate(end) };
}
