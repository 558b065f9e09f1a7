/**
 * Gold trajectories for the SFT warm-start from the real SGD dialogues (Agent Gym's bootstrap: the recorded SYSTEM
 * side is what a good assistant does). Each dialogue is laid out as an episode of its task shows it to the policy:
 * the episode's system prompt, the real user turns, and for each SYSTEM turn its real service calls (one assistant
 * message per call, in the run's tool style) with the recorded results as tool messages, then its utterance.
 */
import type { Demonstration, DemonstrationMessage } from "../types";
import { formatToolCallText, type ToolPromptStyle } from "../parse";
import type { SgdDialogue } from "./sgd-format";
import type { SgdTask } from "./sgd-task";
import { formatToolResults, sgdSystemPrompt, sgdToolName } from "./sgd-tools";

export function dialogueDemonstration(task: SgdTask, dialogue: SgdDialogue, toolStyle: ToolPromptStyle): Demonstration {
  const services = task.data.services;
  const messages: DemonstrationMessage[] = [{ role: "system", content: sgdSystemPrompt(services, toolStyle) }];
  for (const turn of dialogue.turns) {
    if (turn.speaker === "USER") {
      messages.push({ role: "user", content: turn.utterance });
      continue;
    }
    for (const frame of turn.frames) {
      if (!frame.serviceCall) continue;
      const name = sgdToolName(services, frame.service, frame.serviceCall.method);
      messages.push({ role: "assistant", content: formatToolCallText(name, frame.serviceCall.parameters, toolStyle) });
      messages.push({ role: "tool", content: formatToolResults(frame.serviceResults ?? []) });
    }
    messages.push({ role: "assistant", content: turn.utterance });
  }
  return { taskId: task.id, messages };
}

/** Demonstrations for the tasks whose dialogue is in the loaded corpus (the builtin tasks have none). */
export function sgdDemonstrations(tasks: SgdTask[], corpus: SgdDialogue[], toolStyle: ToolPromptStyle): Demonstration[] {
  const byId = new Map(corpus.map((d) => [d.dialogueId, d]));
  return tasks.flatMap((task) => {
    const dialogue = byId.get(task.data.dialogueId);
    return dialogue ? [dialogueDemonstration(task, dialogue, toolStyle)] : [];
  });
}
