/**
 * A token-sampling policy's turn, as runEpisode calls it: the conversation rendered by the policy's chat template
 * (with the episode's tools when the template renders them), sampled from, the sampled ids recorded as sampled
 * (EpisodeTokens), and the reply handed back as the text sampled plus, when tools were offered, the calls its family's
 * parser reads from it — the environment answers them by id, and the next prompt renders them as the template does.
 */
import type { ChatFormat } from "../policy/chat/chat-format";
import type { EpisodeTokens } from "./episode-tokens";
import type { Policy } from "./run-episode";

export interface TurnSample {
  tokens: number[];
  logprobs: number[];
  finishReason: "stop" | "length";
}

export interface TokenPolicyOptions {
  chat: ChatFormat;
  tokens: EpisodeTokens;
  /** Most prompt tokens a turn may start from (the context less the longest reply). */
  room: number;
  sample(prompt: number[]): Promise<TurnSample>;
}

export function tokenPolicy({ chat, tokens, room, sample }: TokenPolicyOptions): Policy {
  return async (messages, { turn, tools }) => {
    const prompt = tokens.prompt(messages, { tools, maxOpening: room });
    if (prompt.length > room) return { text: "", endEpisode: "context_full" };
    const s = await sample(prompt);
    tokens.addTurn(s.tokens, turn, s.finishReason === "stop", s.logprobs);
    const text = tokens.replyText(s.tokens);
    // calls go to the environment as data only when the template was given the tools
    const toolCalls = tools?.length ? chat.toolCallsOf(text) : undefined;
    return { text, ...(toolCalls && { toolCalls }), tokens: s.tokens.length, logProbs: s.logprobs };
  };
}
