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

/**
 * How the user LLM is told to behave: the style paragraph a prompt search (user-prompt-search.ts) chooses among.
 * Every variant keeps the rules a goal-driven user needs (exact values, the stop token); only the style differs.
 */
export const USER_INSTRUCTIONS = {
  default:
    "Say what you want first, without every detail; give a detail when the assistant asks for it or when it is needed; " +
    "answer confirmations truthfully (correct wrong details); keep each message short, like the examples.",
  terse:
    "Write as people type to an assistant: a few words per message, informal, one request or answer at a time, no pleasantries beyond a quick thanks.",
  gradual:
    "Open with only the kind of thing you want (e.g. a restaurant, a flight). Reveal one detail per message, only when the assistant asks " +
    "for it; confirm or correct what the assistant repeats back in one short sentence.",
  mirror:
    "Match the real conversations shown below as closely as you can: the same message length, the same ways of asking, confirming and " +
    "thanking. Never copy their details, only their manner.",
} as const;
export type UserInstructionId = keyof typeof USER_INSTRUCTIONS;

const USER_RULES = (stop: string) =>
  `Use exactly the values above, never invent others. When all your goals are done, thank the assistant and end that message with ${stop}. ` +
  `If the assistant cannot help after several tries, also end with ${stop}.`;

export function buildUserSystemPrompt(task: SgdTaskData, examples: SgdDialogue[], instruction: string = USER_INSTRUCTIONS.default): string {
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
    `How to talk: ${instruction}`,
    `Rules: ${USER_RULES(STOP_TOKEN)}`,
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
