/**
 * The token sequence of one episode, built as it is played ("token in, token out"): the opening messages rendered
 * with the chat template, then per policy turn the tokens actually sampled, then the observations that follow. The
 * update trains on exactly these ids. Re-rendering the finished conversation instead would re-encode decoded text,
 * which is not the identity: a byte-level policy's invalid UTF-8 decodes to U+FFFD (3 other bytes), and BPE can
 * split a decoded string differently from how it was sampled — the update would then train on tokens the policy
 * never produced, with log-probs that do not match the sampler's.
 */
import type { ConversationMessage } from "../../lib/conversation";
import type { Tokenizer } from "../../lib/tokenizer/types";
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
  /** Every sampled token came with its log-prob (a policy that records none — a script, a test — leaves gaps). */
  logprobsComplete = true;
  /** Tokens cut from the start of the opening prompt to fit the context (0 when it fitted). */
  truncatedPrompt = 0;
  /** Messages already in `ids`. */
  private consumed = 0;
  private readonly eot: number;

  constructor(private readonly tok: Tokenizer) {
    this.eot = endOfTurnId(tok);
  }

  /**
   * The ids to continue from at a policy turn: everything so far plus the new messages and a generation prompt.
   * An opening prompt longer than `maxOpening` keeps only its last `maxOpening` tokens (verl's left truncation),
   * and the cut is permanent: the update trains on the same shortened sequence the policy sampled from. Later
   * turns are never cut — a caller whose context is full ends the episode instead.
   */
  prompt(messages: readonly ConversationMessage[], maxOpening = Infinity): number[] {
    if (messages.length < this.consumed) throw new Error("the conversation shrank between policy turns");
    const fresh = messages.slice(this.consumed).map(toTurn);
    const opening = this.consumed === 0;
    const r = opening ? renderChat(this.tok, fresh, { addGenerationPrompt: true }) : renderContinuation(this.tok, fresh);
    const cut = opening ? Math.max(0, r.ids.length - maxOpening) : 0;
    this.truncatedPrompt = opening ? cut : this.truncatedPrompt;
    this.push(r.ids.slice(cut), 0, -1, []);
    this.consumed = messages.length;
    return this.ids.slice(); // a copy: the sampler may hold it while this sequence grows
  }

  /**
   * Records the turn's sampled tokens. A turn cut off by the token budget gets the end-of-turn token so the next
   * observation renders as the template expects, masked out: the policy never chose it.
   */
  addTurn(sampled: readonly number[], turn: number, stopped: boolean, logprobs: readonly number[] = []): void {
    if (logprobs.length < sampled.length) this.logprobsComplete = false;
    this.push(sampled, 1, turn, logprobs);
    if (!stopped) this.push([this.eot], 0, -1, []);
    this.consumed++; // the policy's own message, which runEpisode appends to the conversation
  }

  /** Generated tokens, without the end-of-turn token, as text for the environment. */
  text(sampled: readonly number[]): string {
    return this.tok.decode(sampled.filter((t) => t !== this.eot));
  }

  /**
   * What the update trains on: everything up to the last sampled token. Context rendered after it (the final
   * observations, or a prompt that no longer fit) holds nothing to train and could push the sequence past the
   * model's context, which would then cut the episode's beginning and change what the sampled tokens condition on.
   */
  forTraining(): { ids: number[]; lossMask: number[]; turnIds: number[]; logprobs: number[] } {
    const end = this.lossMask.lastIndexOf(1) + 1;
    return {
      ids: this.ids.slice(0, end),
      lossMask: this.lossMask.slice(0, end),
      turnIds: this.turnIds.slice(0, end),
      logprobs: this.logprobs.slice(0, end),
    };
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
