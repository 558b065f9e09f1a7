/**
 * A demonstration made by playing a real episode with scripted policy messages: every observation is the
 * environment's own (its opening, its offline user and tools), so the SFT warm-start imitates exactly what an
 * episode shows the policy. For environments whose seed systems start RL from an SFT model but ship no gold
 * conversations, the script is a simple solver written from the task's answer key.
 */
import type { ConversationMessage } from "../../lib/conversation";
import type { Demonstration, DemonstrationMessage, Environment, LlmChat, Task } from "./types";
import { runOfflineCall } from "../llm/offline-provider";

/** The offline provider as an LlmChat: every simulator and judge call is answered by the environment's own rules. */
export const offlineChat: LlmChat = {
  async chat(req) {
    const { record, text, error } = await runOfflineCall(req);
    if (error || text === null) throw error ?? new Error("offline simulator gave no reply");
    return { text, callId: record.id };
  },
};

const toDemo = (m: ConversationMessage): DemonstrationMessage => ({ role: m.role, content: m.content });

/**
 * Plays `task` with the policy messages `script` returns (null ends the episode), up to `maxTurns`. Returns null
 * when the scripted play does not solve the task (reward below `minReward`): an unsolved demonstration would teach
 * the wrong thing.
 */
export async function scriptedDemonstration<T>(
  env: Environment<T>,
  task: Task<T>,
  script: (turn: number, seen: readonly ConversationMessage[]) => string | null,
  opts: { maxTurns?: number; minReward?: number } = {},
): Promise<Demonstration | null> {
  const maxTurns = opts.maxTurns ?? 10;
  const episode = env.createEpisode(task, { seed: 0, llm: offlineChat, maxTurns });
  const seen: ConversationMessage[] = [...(await episode.reset())];
  const messages = seen.map(toDemo);
  let done = false;
  for (let turn = 0; turn < maxTurns && !done; turn++) {
    const text = script(turn, seen);
    if (text === null) break;
    messages.push({ role: "assistant", content: text });
    const result = await episode.step(text, turn);
    seen.push(...result.observations);
    messages.push(...result.observations.map(toDemo));
    done = result.done;
  }
  const evaluation = await episode.evaluate(done ? "agent_finished" : "max_turns");
  if (evaluation.reward === null || evaluation.reward < (opts.minReward ?? 0.5)) return null;
  return { taskId: task.id, messages };
}
