/**
 * Renders a conversation into token ids plus a loss mask. Only the policy's own tokens are trainable (assistant
 * content and its end-of-turn token); system, user, tool and simulator tokens are context and masked out, as in
 * the multi-turn setups of UserRL / SkyRL (loss_mask over assistant tokens only).
 *
 * Templates are chosen by the special tokens the tokenizer has: ChatML (Qwen, the byte tokenizer) or Llama 3.
 * Each piece is encoded separately; special tokens delimit every piece, so this equals encoding the whole string.
 */
import { TokenizerError, type Tokenizer } from "../../../lib/tokenizer/types";

export interface ChatTurn {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  /** Who produced it (lib/conversation MessageSource). Trainable iff "policy"; defaults to role === "assistant". */
  source?: string;
}

export interface RenderedChat {
  ids: number[];
  /** 1 where the token was produced by the policy (trainable), else 0. Same length as ids. */
  lossMask: number[];
  /** [start, end) token range of each message's content+terminator. */
  spans: { start: number; end: number; trainable: boolean }[];
}

export type TemplateName = "chatml" | "llama3";

interface Template {
  prefix: string;
  header(role: string): string;
  /** Terminator the policy must learn to emit (trainable) and separator after it (not trainable). */
  end: string;
  sep: string;
}

const TEMPLATES: Record<TemplateName, Template> = {
  chatml: { prefix: "", header: (r) => `<|im_start|>${r}\n`, end: "<|im_end|>", sep: "\n" },
  llama3: {
    prefix: "<|begin_of_text|>",
    header: (r) => `<|start_header_id|>${r === "tool" ? "ipython" : r}<|end_header_id|>\n\n`,
    end: "<|eot_id|>",
    sep: "",
  },
};

export function detectTemplate(tok: Tokenizer): TemplateName {
  if (tok.tokenId("<|im_start|>") !== undefined && tok.tokenId("<|im_end|>") !== undefined) return "chatml";
  if (tok.tokenId("<|start_header_id|>") !== undefined && tok.tokenId("<|eot_id|>") !== undefined) return "llama3";
  throw new TokenizerError(
    "The tokenizer has neither ChatML (<|im_start|>, <|im_end|>) nor Llama 3 (<|start_header_id|>, <|eot_id|>) special tokens; no chat template can be applied.",
  );
}

/** The token that ends a policy turn (use as a stop token when sampling). */
export function endOfTurnId(tok: Tokenizer, template: TemplateName = detectTemplate(tok)): number {
  return tok.tokenId(TEMPLATES[template].end) as number;
}

export function renderChat(
  tok: Tokenizer,
  messages: ChatTurn[],
  opts: { addGenerationPrompt?: boolean; template?: TemplateName } = {},
): RenderedChat {
  const t = TEMPLATES[opts.template ?? detectTemplate(tok)];
  const ids: number[] = [];
  const lossMask: number[] = [];
  const spans: RenderedChat["spans"] = [];
  const push = (text: string, trainable: boolean) => {
    if (!text) return;
    const piece = tok.encode(text);
    ids.push(...piece);
    lossMask.push(...piece.map(() => (trainable ? 1 : 0)));
  };
  push(t.prefix, false);
  for (const m of messages) {
    const trainable = m.source !== undefined ? m.source === "policy" : m.role === "assistant";
    push(t.header(m.role), false);
    const start = ids.length;
    push(m.content, trainable);
    push(t.end, trainable);
    spans.push({ start, end: ids.length, trainable });
    push(t.sep, false);
  }
  if (opts.addGenerationPrompt) push(t.header("assistant"), false);
  return { ids, lossMask, spans };
}

/**
 * Tokens that follow a policy turn in a multi-turn rollout: the template's separator, the observation messages and
 * the next generation prompt. Appending these to (prompt + sampled tokens) reproduces renderChat of the whole
 * conversation, so the tokens trained on are exactly the tokens sampled.
 */
export function renderContinuation(tok: Tokenizer, observations: ChatTurn[], template: TemplateName = detectTemplate(tok)): RenderedChat {
  const t = TEMPLATES[template];
  const body = renderChat(tok, observations, { addGenerationPrompt: true, template });
  const skip = t.prefix ? tok.encode(t.prefix).length : 0;
  const sep = t.sep ? tok.encode(t.sep) : [];
  const shift = sep.length - skip;
  return {
    ids: [...sep, ...body.ids.slice(skip)],
    lossMask: [...sep.map(() => 0), ...body.lossMask.slice(skip)],
    spans: body.spans.map((s) => ({ ...s, start: s.start + shift, end: s.end + shift })),
  };
}
