/**
 * Runs the τ² customer through `ctx.llm` under one of the four strategies. The offline reply (rule-based customer)
 * is formatted the way each strategy's LLM output is, so the same parsing path serves real and offline runs.
 */
import type { LlmChat, LlmChatRequest } from "../types";
import type { Tau2UserScenario } from "./tau2-format";
import { offlineUserReply, openingMessage, type GoalView, type OfflineUserMemory } from "./offline-user";
import {
  OUT_OF_SCOPE_TOKEN,
  STOP_TOKEN,
  TRANSFER_TOKEN,
  extractUserMessage,
  reflectionPrompt,
  userSystemPrompt,
  verifyPrompt,
  type UserStrategy,
} from "./user-prompts";

export interface UserTurn {
  text: string;
  callIds: string[];
  /** "stop" when the customer says the goal is met (or is out of scope), "transfer" when handed to a human. */
  ending: "stop" | "transfer" | null;
}

type ChatMessage = LlmChatRequest["messages"][number];

export class Tau2UserSimulator {
  private readonly memory: OfflineUserMemory = { identityGiven: false, restatements: 0 };
  /** The customer's view of the dialogue: its own messages are "assistant", the agent's are "user" (τ²'s flip). */
  private readonly history: ChatMessage[] = [];

  constructor(
    private readonly scenario: Tau2UserScenario,
    private readonly strategy: UserStrategy,
    private readonly llm: LlmChat,
  ) {}

  /** The customer already opened with `text` (a task that ships its first message, as UserRL's TauGym does). */
  openedWith(text: string): void {
    this.history.push({ role: "user", content: "Hi! How can I help you today?" }, { role: "assistant", content: text });
  }

  async opening(turn: number): Promise<UserTurn> {
    const offline = openingMessage(this.scenario);
    return this.generate("Hi! How can I help you today?", () => offline, turn);
  }

  async reply(agentText: string, goal: GoalView, turn: number): Promise<UserTurn> {
    // Computed lazily and once: the rule-based customer keeps memory, so it must run only when actually asked.
    let cached: string | undefined;
    const offline = () => (cached ??= offlineUserReply(this.scenario, this.memory, agentText, goal));
    return this.generate(agentText, offline, turn);
  }

  private async generate(agentText: string, offline: () => string, turn: number): Promise<UserTurn> {
    this.history.push({ role: "user", content: agentText });
    const messages: ChatMessage[] = [{ role: "system", content: userSystemPrompt(this.strategy, this.scenario) }, ...this.history];
    const callIds: string[] = [];
    const formatted = () => (this.strategy === "react" ? `Thought: I answer from my scenario.\nUser Response: ${offline()}` : offline());
    const first = await this.llm.chat({ role: "user_simulator", messages, turn, offline: formatted });
    callIds.push(first.callId);
    let text = extractUserMessage(this.strategy, first.text);
    if (this.strategy === "verify") {
      const check = await this.llm.chat({
        role: "user_simulator",
        messages: [{ role: "user", content: verifyPrompt(this.scenario, text) }],
        turn,
        offline: () => "VALID",
      });
      callIds.push(check.callId);
      const revised = /REVISED:\s*([\s\S]+)/i.exec(check.text);
      if (revised) text = revised[1].trim();
    } else if (this.strategy === "reflection") {
      const draft = text;
      const reflected = await this.llm.chat({
        role: "user_simulator",
        messages: [{ role: "user", content: reflectionPrompt(this.scenario, draft) }],
        turn,
        offline: () => `Reflection: the draft follows my scenario.\nResponse: ${draft}`,
      });
      callIds.push(reflected.callId);
      text = extractUserMessage("reflection-final", reflected.text) || draft;
    }
    this.history.push({ role: "assistant", content: text });
    const ending = text.includes(TRANSFER_TOKEN)
      ? "transfer"
      : text.includes(STOP_TOKEN) || text.includes(OUT_OF_SCOPE_TOKEN)
        ? "stop"
        : null;
    return { text, callIds, ending };
  }
}
