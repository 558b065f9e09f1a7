/**
 * Gold trajectories for the SFT warm-start from BFCL's ground truth: per user turn, the ground-truth calls in BFCL's
 * own Python syntax (one assistant message, as BFCL's prompt asks), their results executed on fresh API instances
 * (the same run the reward compares against), then a short plain-text reply, which is how a policy closes a turn
 * in this environment. BFCL records no reply text, so that reply is a fixed "Done." (format, not content).
 * Entries with a turn whose ground truth is empty (the model should ask instead of calling) are skipped: there is
 * no gold reply to imitate.
 */
import type { Demonstration, DemonstrationMessage, Task } from "../types";
import type { ToolPromptStyle } from "../parse";
import type { BfclTaskData } from "./bfcl-format";
import { bfclSystemPrompt, type GroundTruthRun } from "./bfcl-episode";

export const TURN_CLOSING_REPLY = "Done.";

export function bfclDemonstration(task: Task<BfclTaskData>, gt: GroundTruthRun, toolStyle: ToolPromptStyle): Demonstration | null {
  const data = task.data;
  if (data.groundTruth.some((calls) => calls.length === 0)) return null;
  const messages: DemonstrationMessage[] = [{ role: "system", content: bfclSystemPrompt(data, toolStyle) }];
  data.turns.forEach((userMessages, t) => {
    for (const m of userMessages) messages.push({ role: "user", content: m.content });
    messages.push({ role: "assistant", content: `[${data.groundTruth[t].join(", ")}]` });
    for (const result of gt.results[t]) messages.push({ role: "tool", content: result });
    messages.push({ role: "assistant", content: TURN_CLOSING_REPLY });
  });
  return { taskId: task.id, messages };
}
