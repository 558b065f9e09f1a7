/**
 * Prompts for the LLM playing the τ² customer. The four strategies are tau-bench's user strategies (Yao et al.,
 * 2024, `UserStrategy`): plain `llm`; `react` (think, then answer after "User Response:"); `verify` (a second call
 * checks the reply against the instructions and may revise it); `reflection` (a second call reflects on the reply
 * and rewrites it). Wording is ours; the control tokens are the benchmark's.
 */
import type { Tau2UserScenario } from "./tau2-format";

import type { UserStrategy } from "../../../lib/environment-options";

export { USER_STRATEGIES, type UserStrategy } from "../../../lib/environment-options";

export const STOP_TOKEN = "###STOP###";
export const TRANSFER_TOKEN = "###TRANSFER###";
export const OUT_OF_SCOPE_TOKEN = "###OUT-OF-SCOPE###";

function scenarioText(s: Tau2UserScenario): string {
  return [
    s.persona ? `Persona: ${s.persona}` : "",
    `Reason for your call: ${s.reasonForCall}`,
    s.knownInfo ? `What you know: ${s.knownInfo}` : "",
    s.unknownInfo ? `What you do not know: ${s.unknownInfo}` : "",
    s.taskInstructions && s.taskInstructions !== "." ? `How to behave: ${s.taskInstructions}` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

const RULES = [
  "You are a customer talking to a retail store's support agent. You are NOT the agent: never offer help, never call tools.",
  "Write one short, natural message per turn. Reveal information only when the agent asks for it, a little at a time.",
  "Never invent information that is not in your scenario; if asked for something you do not know, say you do not know.",
  `When your goal is fully met, reply with only ${STOP_TOKEN}. If you are transferred to a human agent, reply with only ${TRANSFER_TOKEN}.`,
  `If the scenario does not cover what the agent asks and you cannot continue, reply with only ${OUT_OF_SCOPE_TOKEN}.`,
].join("\n");

export function userSystemPrompt(strategy: UserStrategy, scenario: Tau2UserScenario): string {
  const format =
    strategy === "react"
      ? "Answer in two parts:\nThought: <your private reasoning about what to say next>\nUser Response: <the message you send>"
      : "Reply with the message you send, nothing else.";
  return `${RULES}\n\nYour scenario:\n${scenarioText(scenario)}\n\n${format}`;
}

export function verifyPrompt(scenario: Tau2UserScenario, draft: string): string {
  return [
    "You check a simulated customer's next message against the customer's scenario.",
    `Scenario:\n${scenarioText(scenario)}`,
    `Draft message:\n${draft}`,
    "If the draft is consistent with the scenario (no invented facts, no acting as the agent, control tokens used correctly), reply VALID.",
    "Otherwise reply REVISED: <a corrected message>.",
  ].join("\n\n");
}

export function reflectionPrompt(scenario: Tau2UserScenario, draft: string): string {
  return [
    "Reflect on a simulated customer's next message before it is sent.",
    `Scenario:\n${scenarioText(scenario)}`,
    `Draft message:\n${draft}`,
    "Answer in two parts:\nReflection: <does the draft follow the scenario and reveal only what was asked?>\nResponse: <the final message>",
  ].join("\n\n");
}

/** The message part of a strategy's raw output (react's "User Response:", reflection's "Response:"). */
export function extractUserMessage(strategy: UserStrategy | "reflection-final", raw: string): string {
  const marker = strategy === "react" ? /User Response:\s*/i : strategy === "reflection-final" ? /(?:^|\n)\s*Response:\s*/i : null;
  if (!marker) return raw.trim();
  const m = marker.exec(raw);
  return m ? raw.slice(m.index + m[0].length).trim() : raw.trim();
}
