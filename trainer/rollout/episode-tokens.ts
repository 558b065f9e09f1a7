/**
 * The token sequence of one episode, built as it is played ("token in, token out"): the opening messages rendered
 * with the chat template, then per policy turn the tokens actually sampled, then the observations that follow. The
 * update trains on exactly these ids. Re-rendering the finished conversation instead would re-encode decoded text,
 * which is not the identity: a byte-level policy's invalid UTF-8 decodes to U+FFFD (3 other bytes), and BPE can
 * split a decoded string differently from how it was sampled — the update would then train on tokens the policy
 * never produced, with log-probs that do not match the sampler's.
 */
import type { ConversationMessage } from "../../lib/conversation";
import type { Tokenizer } from "../policy/tokenizer/types";
import { endOfTurnId, renderChat, renderContinuation, type ChatTurn } from "../policy/tokenizer/chat-template";

const toTurn = (m: ConversationMessage): ChatTurn => ({ role: m.role, content: m.content, source: m.source });

export class EpisodeTokens {
  readonly ids: number[] = [];
  /** 1 for sampled tokens (trainable), 0 for context. */
  readonly lossMask: number[] = [];
  /** Policy turn of each sampled token, -1 elsewhere (multi-turn credit assignment). */
  readonly turnIds: number[] = [];
  /** Sampling log-prob of each sampled token, 0 elsewhere (the rollout policy's log-probs, when recorded). */
  readonly logprobs: number[] = [];
  /** Messages already in `ids`. */
  private consumed = 0;
  private readonly eot: number;

  constructor(private readonly tok: Tokenizer) {
    this.eot = endOfTurnId(tok);
  }

  /** The ids to continue from at a policy turn: everything so far plus the new messages and a generation prompt. */
  prompt(messages: readonly ConversationMessage[]): number[] {
    if (messages.length < this.consumed) throw new Error("the conversation shrank between policy turns");
    const fresh = messages.slice(this.consumed).map(toTurn);
    const r = this.consumed === 0 ? renderChat(this.tok, fresh, { addGenerationPrompt: true }) : renderContinuation(this.tok, fresh);
    this.push(r.ids, 0, -1, []);
    this.consumed = messages.length;
    return this.ids;
  }

  /**
   * Records the turn's sampled tokens. A turn cut off by the token budget gets the end-of-turn token so the next
   * observation renders as the template expects, masked out: the policy never chose it.
   */
  addTurn(sampled: readonly number[], turn: number, stopped: boolean, logprobs: readonly number[] = []): void {
    this.push(sampled, 1, turn, logprobs);
    if (!stopped) this.push([this.eot], 0, -1, []);
    this.consumed++; // the policy's own message, which runEpisode appends to the conversation
  }

  /** Generated tokens, without the end-of-turn token, as text for the environment. */
  text(sampled: readonly number[]): string {
    return this.tok.decode(sampled.filter((t) => t !== this.eot));
  }

  get responseTokens(): number {
    return this.lossMask.reduce((s, m) => s + m, 0);
  }

  private push(ids: readonly number[], mask: number, turn: number, logprobs: readonly number[]): void {
    ids.forEach((id, i) => {
      this.ids.push(id);
      this.lossMask.push(mask);
      this.turnIds.push(turn);
      this.logprobs.push(logprobs[i] ?? 0);
    });
  }
}
