/**
 * The system prompt of the LLM-played user (when a real endpoint serves `user_simulator`). It carries the goal and
 * the few-shot real dialogues; the conversation is then given from the user's side (agent turns as "user", the
 * simulated user's own turns as "assistant") so any chat model can play it.
 */
import type { ConversationMessage } from "../../../lib/conversation";
import type { SgdDialogue } from "./sgd-format";
import type { SgdTaskData } from "./sgd-task";
import { renderDialogueExample } from "./few-shot";
import { STOP_TOKEN, speakValue } from "./offline-user";

export function buildUserSystemPrompt(task: SgdTaskData, examples: SgdDialogue[]): string {
  const goalLines = task.goal.map((g, i) => {
    const slots = Object.entries(g.parameters)
      .map(([k, v]) => `${k} = ${speakValue(v)}`)
      .join("; ");
    return `${i + 1}. ${g.intent} (${g.service}) with ${slots}`;
  });
  const parts = [
    "You are a person talking to a virtual assistant that can use online services. Play this user realistically.",
    "Your goal, in order:",
    ...goalLines,
    "Rules: say what you want first, without every detail; give a detail when the assistant asks for it or when it is " +
      "needed; use exactly the values above, never invent others; answer confirmations truthfully (correct wrong " +
      "details); keep each message short, like the examples. When all your goals are done, thank the assistant and " +
      `end that message with ${STOP_TOKEN}. If the assistant cannot help after several tries, also end with ${STOP_TOKEN}.`,
  ];
  if (examples.length > 0) {
    parts.push("Real conversations of users with similar goals (match their style, not their details):");
    examples.forEach((e, i) => parts.push(`--- example ${i + 1} ---\n${renderDialogueExample(e)}`));
  }
  return parts.join("\n");
}

/** The conversation seen from the user's side: the agent's words are the "user" of the user LLM. */
export function userSideMessages(history: ConversationMessage[]): { role: "user" | "assistant"; content: string }[] {
  return history
    .filter(
      (m) => (m.source === "policy" && m.content.trim() !== "" && !m.toolCalls?.length && !m.formatError) || m.source === "user_simulator",
    )
    .map((m) => ({ role: m.source === "policy" ? ("user" as const) : ("assistant" as const), content: m.content }));
}
