/**
 * The token sequence of one episode, built as it is played ("token in, token out"). Every prompt is the policy's
 * chat template rendered over the whole conversation so far (policy/chat/chat-format.ts) — what the model would be
 * given by transformers or vLLM — and the ids of the rendered text are the tokenizer's encoding of it. Sampled ids
 * are kept as sampled: re-encoding decoded text is not the identity (a byte-level policy's invalid UTF-8 decodes to
 * U+FFFD, and BPE can split a decoded string differently), so the update would otherwise train on tokens the policy
 * never produced, with log-probs that do not match the sampler's.
 *
 * Templates are usually prefix-stable: the next prompt's text starts with the text so far (the previous prompt, the
 * reply and its end-of-turn token), and only the new part is encoded and appended — after a special token, so the
 * ids are those of encoding the whole. Where a template is not (Qwen3 drops earlier reasoning once a new user
 * message arrives; a reply that stopped on another eos id, a Llama reply with trailing spaces its template trims,
 * a tool list that changed, a tool call whose JSON the template writes spaced otherwise than it was sampled), what
 * happens depends on the run's `rollout.policyContext`:
 *
 * - "append" (the default; verl's and SkyRL's multi-turn rollouts build it so): the context stays append-only. The
 *   sampled ids are kept, and only the observation's rendered delta is appended: the template's rendering of the
 *   conversation after the end of the last reply's turn (counted by stop tokens, so the template's glue after the end
 *   token comes too). One sequence per episode, trained in the context it was sampled in; the turn is counted as one
 *   where the template would have rendered differently (`divergedTurns`).
 * - "rerender": the conversation is re-rendered and a new segment starts: the ids before it stay as they were sampled
 *   and train in their own context, the next turns sample from the re-rendered prompt (what a chat-completions server
 *   would feed the model), at the price of training the shared history once per segment.
 */
import type { ConversationMessage } from "../../lib/conversation";
import type { ToolSchema } from "../envs/types";
import type { ChatFormat } from "../policy/chat/chat-format";
import type { PolicyContextMode } from "../../lib/run-config";

/** One rendering of the episode and the turns sampled after it; what the update trains on is per segment. */
export interface TokenSegment {
  ids: number[];
  lossMask: number[];
  turnIds: number[];
  logprobs: number[];
}

export class EpisodeTokens {
  /** Every segment's ids one after another (the policy view shows them in order, marking where each starts). */
  readonly ids: number[] = [];
  /** 1 for sampled tokens (trainable), 0 for context. */
  readonly lossMask: number[] = [];
  /** Policy turn of each sampled token, -1 elsewhere (multi-turn credit assignment). */
  readonly turnIds: number[] = [];
  /** Sampling log-prob of each sampled token, 0 elsewhere (the rollout policy's log-probs, when recorded). */
  readonly logprobs: number[] = [];
  /** Where each segment starts in `ids` (the first at 0): a later one is a re-rendering of the conversation. */
  readonly segmentStarts: number[] = [];
  /** Every sampled token came with its log-prob (a policy that records none — a script, a test — leaves gaps). */
  logprobsComplete = true;
  /** Tokens cut from the start of the opening prompt to fit the context (0 when it fitted). */
  truncatedPrompt = 0;
  /**
   * Prompts after the opening one where the template's rendering of the conversation did not extend the context the
   * policy had sampled from: re-rendered ("rerender") or appended to as the delta only ("append").
   */
  divergedTurns = 0;
  /** The text the current segment's ids stand for (the rendered prompt plus the replies' text). */
  private text = "";

  constructor(
    private readonly chat: ChatFormat,
    readonly mode: PolicyContextMode = "rerender",
  ) {}

  private get segmentStart(): number {
    return this.segmentStarts.at(-1) ?? 0;
  }

  /**
   * The ids to sample the next turn from: the conversation rendered with a generation prompt, as the current
   * segment plus what is new, or as a new segment when the template did not keep what came before. An opening prompt
   * longer than `maxOpening` keeps only its last `maxOpening` tokens (verl's left truncation), for good: the update
   * trains on the same shortened sequence. Later prompts are never cut — a caller whose context is full ends the
   * episode instead.
   */
  prompt(messages: readonly ConversationMessage[], opts: { tools?: readonly ToolSchema[]; maxOpening?: number } = {}): number[] {
    const rendered = this.chat.renderConversation(messages, { tools: opts.tools, addGenerationPrompt: true });
    const appendable = this.segmentStarts.length > 0 && rendered.startsWith(this.text) && this.endsAtStopToken();
    const delta = appendable || this.mode !== "append" ? null : this.observationDelta(messages, opts.tools);
    if (this.segmentStarts.length > 0 && !appendable) this.divergedTurns++;
    if (appendable) {
      this.push(this.chat.encode(rendered.slice(this.text.length)), 0, -1, []);
    } else if (delta !== null) {
      this.push(this.chat.encode(delta), 0, -1, []);
      this.text += delta;
      return this.ids.slice(this.segmentStart);
    } else {
      const ids = this.chat.encode(rendered);
      const opening = this.segmentStarts.length === 0;
      const cut = opening ? Math.max(0, ids.length - (opts.maxOpening ?? Infinity)) : 0;
      if (opening) this.truncatedPrompt = cut;
      this.segmentStarts.push(this.ids.length);
      this.push(ids.slice(cut), 0, -1, []);
    }
    this.text = rendered;
    return this.ids.slice(this.segmentStart); // a copy: the sampler may hold it while this sequence grows
  }

  /**
   * "append" mode: what the template renders after the last reply's turn: the rendering of the whole conversation
   * (with the generation prompt) from the point where the conversation up to that reply ends its last stop token.
   * Null when there is no earlier turn or the two renderings do not have that stop token in common (then the
   * conversation is re-rendered, as in "rerender" mode).
   */
  private observationDelta(messages: readonly ConversationMessage[], tools: readonly ToolSchema[] | undefined): string | null {
    if (this.segmentStarts.length === 0 || !this.endsAtStopToken()) return null;
    let lastReply = -1;
    messages.forEach((m, i) => m.role === "assistant" && (lastReply = i));
    if (lastReply < 0) return null;
    const history = this.chat.renderConversation(messages.slice(0, lastReply + 1), { tools, addGenerationPrompt: false });
    const full = this.chat.renderConversation(messages, { tools, addGenerationPrompt: true });
    const closed = this.stopTokenEnds(history).length;
    const start = closed > 0 ? this.stopTokenEnds(full)[closed - 1] : undefined;
    return start === undefined ? null : full.slice(start);
  }

  /** Where each stop token's text ends in `text`, left to right. */
  private stopTokenEnds(text: string): number[] {
    const stops = [...new Set(this.chat.stopIds.map((id) => this.chat.tokenizer.decode([id])).filter((t) => t.length > 0))];
    const ends: number[] = [];
    for (let at = 0; ;) {
      let best = -1;
      let len = 0;
      for (const stop of stops) {
        const i = text.indexOf(stop, at);
        if (i >= 0 && (best < 0 || i < best)) [best, len] = [i, stop.length];
      }
      if (best < 0) return ends;
      at = best + len;
      ends.push(at);
    }
  }

  /** Re-renderings after the opening one (0 while the template kept every prompt a prefix of the next). */
  get rerenders(): number {
    return Math.max(0, this.segmentStarts.length - 1);
  }

  /**
   * Records the turn's sampled tokens. A turn cut off by the token budget gets the end-of-turn token so the next
   * observation renders as the template expects, masked out: the policy never chose it.
   */
  addTurn(sampled: readonly number[], turn: number, stopped: boolean, logprobs: readonly number[] = []): void {
    if (logprobs.length < sampled.length) this.logprobsComplete = false;
    this.push(sampled, 1, turn, logprobs);
    const closing = stopped ? [] : [this.chat.endOfTurn.id];
    this.push(closing, 0, -1, []);
    this.text += this.chat.tokenizer.decode([...sampled, ...closing]);
  }

  /** A reply's text as the environment gets it: the sampled tokens without the stop token that ended them. */
  replyText(sampled: readonly number[]): string {
    const last = sampled.at(-1);
    const body = last !== undefined && this.chat.stopIds.includes(last) ? sampled.slice(0, -1) : sampled;
    return this.chat.tokenizer.decode([...body]);
  }

  /**
   * What the update trains on: each segment up to its last sampled token. Context rendered after it (the final
   * observations, or a prompt that no longer fit) holds nothing to train and could push the sequence past the
   * model's context. Segments without a sampled token are left out.
   */
  forTraining(): {
    segments: TokenSegment[];
    ids: number[];
    lossMask: number[];
    turnIds: number[];
    logprobs: number[];
    segmentStarts: number[];
  } {
    const segments: TokenSegment[] = [];
    const bounds = [...this.segmentStarts, this.ids.length];
    for (let s = 0; s + 1 < bounds.length; s++) {
      const mask = this.lossMask.slice(bounds[s], bounds[s + 1]);
      const end = bounds[s] + mask.lastIndexOf(1) + 1;
      if (end <= bounds[s]) continue;
      const part = (a: number[]) => a.slice(bounds[s], end);
      segments.push({ ids: part(this.ids), lossMask: part(this.lossMask), turnIds: part(this.turnIds), logprobs: part(this.logprobs) });
    }
    const flat = (pick: (s: TokenSegment) => number[]) => segments.flatMap(pick);
    const segmentStarts: number[] = [];
    segments.reduce((at, s) => (segmentStarts.push(at), at + s.ids.length), 0);
    return {
      segments,
      ids: flat((s) => s.ids),
      lossMask: flat((s) => s.lossMask),
      turnIds: flat((s) => s.turnIds),
      logprobs: flat((s) => s.logprobs),
      segmentStarts,
    };
  }

  get responseTokens(): number {
    return this.lossMask.reduce((s, m) => s + m, 0);
  }

  /** Text appended after a stop token encodes as it would in the whole text: added tokens split the input first. */
  private endsAtStopToken(): boolean {
    const last = this.ids.at(-1);
    return last !== undefined && this.chat.stopIds.includes(last);
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
