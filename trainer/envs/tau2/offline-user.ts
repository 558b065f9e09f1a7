/**
 * The deterministic customer used when no LLM serves the user_simulator role. It is driven by the task's user
 * scenario and by ground truth the episode shares with it (whether the database already equals the expected one):
 * it opens with the reason for the call, gives its known identity details when asked, confirms when the agent asks
 * for confirmation, and says ###STOP### once the goal is met — what τ²'s instructions ask an LLM customer to do.
 */
import type { Tau2UserScenario } from "./tau2-format";
import { STOP_TOKEN, TRANSFER_TOKEN } from "./user-prompts";

export interface OfflineUserMemory {
  identityGiven: boolean;
  /** Agent messages answered with a restatement of the request (bounded so a stuck agent cannot loop forever). */
  restatements: number;
}

export interface GoalView {
  /** The task's goal is reached (database equals the expected one and required info was communicated). */
  goalMet: boolean;
}

const MAX_RESTATEMENTS = 3;

/** Rewrites the scenario's second-person text ("You are Yusuf ... your order") as the customer speaking. */
export function toFirstPerson(text: string): string {
  return text
    .replace(/\bYou are\b/g, "I am")
    .replace(/\byou are\b/g, "I am")
    .replace(/\bYou're\b/g, "I'm")
    .replace(/\byou're\b/g, "I'm")
    .replace(/\bYou'd\b/g, "I'd")
    .replace(/\byou'd\b/g, "I'd")
    .replace(/\bYou have\b/g, "I have")
    .replace(/\byou have\b/g, "I have")
    .replace(/\bYourself\b/g, "Myself")
    .replace(/\byourself\b/g, "myself")
    .replace(/\bYour\b/g, "My")
    .replace(/\byour\b/g, "my")
    .replace(/\b(asks|ask|tell|tells|give|gives|help|helps|for|to|with|offer|offers|remind|reminds) you\b/g, "$1 me")
    .replace(/\bYou\b/g, "I")
    .replace(/\byou\b/g, "I");
}

const ASKS_IDENTITY = /\b(e-?mail|zip ?code|zip|full name|your name|user id|identif\w*|authenticat\w*|verify your|locate your)\b/i;
const ASKS_EMAIL_ONLY = /\be-?mail\b/i;
const ASKS_CONFIRMATION =
  /\b(confirm\w*|proceed|shall i|should i|would you like me|do you want me|yes\/no|go ahead|is that correct|is this correct)\b/i;
const TRANSFERRED = /transferr\w* (you )?to a human|YOU ARE BEING TRANSFERRED/i;

export function openingMessage(s: Tau2UserScenario): string {
  const reason = s.reasonForCall || s.taskInstructions;
  return `Hi! ${toFirstPerson(reason)}`.trim();
}

/** The customer's reply to the agent's latest message. Mutates `memory`. */
export function offlineUserReply(s: Tau2UserScenario, memory: OfflineUserMemory, agentText: string, goal: GoalView): string {
  if (goal.goalMet) return `Thank you, that's everything I needed. ${STOP_TOKEN}`;
  if (TRANSFERRED.test(agentText)) return TRANSFER_TOKEN;
  if (ASKS_IDENTITY.test(agentText) && s.knownInfo) {
    memory.identityGiven = true;
    const noEmail = ASKS_EMAIL_ONLY.test(agentText) && /e-?mail/i.test(s.unknownInfo) ? "I don't remember my email. " : "";
    return `${noEmail}${toFirstPerson(s.knownInfo)}`;
  }
  if (ASKS_CONFIRMATION.test(agentText)) return "Yes, please go ahead.";
  memory.restatements += 1;
  if (memory.restatements > MAX_RESTATEMENTS) return `I don't think we're getting anywhere. ${STOP_TOKEN}`;
  return `To be clear about what I need: ${toFirstPerson(s.reasonForCall || s.taskInstructions)}`;
}
