/**
 * A Hugging Face tokenizer (`tokenizer.json`, with `tokenizer_config.json` when there is one) run by
 * `@huggingface/tokenizers`, the tokenizer library of transformers.js: normalizer, pre-tokenizer, model, decoder and
 * added tokens exactly as the Rust `tokenizers` library applies them. Rollout Lab had its own BPE reader; on the
 * parity set of issue #28 (2,400 strings per family) it differed on every string that is not in NFC form (it ignored
 * the normalizer), and once fixed it was not faster across the board (docs/checkpoints.md has the figures), so the
 * kept library won.
 *
 * Encoding never adds the post-processor's tokens (Llama 3's <|begin_of_text|>): the chat template writes them, as
 * transformers' apply_chat_template(tokenize=True) does. Decoding keeps special tokens and never "cleans up"
 * spaces, so decoded text is exactly the text of the ids.
 */
import { Tokenizer as HfLibraryTokenizer } from "@huggingface/tokenizers";
import { TokenizerError, type Tokenizer } from "./types";

/** The parts of tokenizer.json Rollout Lab reads itself (the library reads the rest). */
export interface TokenizerJson {
  added_tokens?: { id: number; content: string; special?: boolean }[];
  model: {
    type?: string;
    vocab?: Record<string, number> | [string, number][];
    merges?: (string | [string, string])[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** tokenizer_config.json: special tokens as strings or {content} objects, the chat template, … */
export type TokenizerConfig = Record<string, unknown>;

/** A special token entry of tokenizer_config.json ("<|im_end|>" or {"content": "<|im_end|>", …}) as its text. */
export function specialTokenText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && typeof (value as { content?: unknown }).content === "string")
    return (value as { content: string }).content;
  return undefined;
}

const EOS_GUESSES = ["<|im_end|>", "<|eot_id|>", "<|endoftext|>", "<|end_of_text|>", "</s>", "<eos>"];
const PAD_GUESSES = ["<|endoftext|>", "<pad>", "<|finetune_right_pad_id|>"];

export class HfTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly eosId: number;
  readonly padId: number;
  private readonly lib: HfLibraryTokenizer;
  private readonly known: (id: number) => boolean;
  private readonly specialIds: Set<number>;

  constructor(json: TokenizerJson, config: TokenizerConfig = {}) {
    if (!json || typeof json !== "object" || !json.model || typeof json.model !== "object") {
      throw new TokenizerError("tokenizer.json has no model section; is it a Hugging Face tokenizer file?");
    }
    try {
      // tokenizers (Rust) writes every section, null when unused; hand-written files may leave them out
      const complete = { added_tokens: [], normalizer: null, pre_tokenizer: null, post_processor: null, decoder: null, ...json };
      this.lib = new HfLibraryTokenizer(complete, config);
    } catch (e) {
      throw new TokenizerError(`tokenizer.json cannot be loaded: ${(e as Error).message}`);
    }
    const vocab = (this.lib as unknown as { model: { vocab: (string | undefined)[] } }).model.vocab;
    // ids past the vocabulary exist in models whose embedding is padded (Qwen2.5: 151,665 tokens, 151,936 rows); an
    // untrained policy samples them, and they decode to nothing rather than failing the decoder
    this.known = (id) => Number.isInteger(id) && id >= 0 && typeof vocab[id] === "string";
    this.vocabSize = vocab.length;
    this.specialIds = new Set((json.added_tokens ?? []).filter((t) => t.special).map((t) => t.id));
    const named = (key: string) => {
      const text = specialTokenText(config[key]);
      return text === undefined ? undefined : this.tokenId(text);
    };
    const guess = (names: string[]) => names.map((n) => this.tokenId(n)).find((id) => id !== undefined);
    this.eosId = named("eos_token") ?? guess(EOS_GUESSES) ?? 0;
    this.padId = named("pad_token") ?? guess(PAD_GUESSES) ?? this.eosId;
  }

  encode(text: string): number[] {
    if (text === "") return [];
    return this.lib.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: number[]): string {
    const kept = ids.filter(this.known);
    if (kept.length === 0) return "";
    return this.lib.decode(kept, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  tokenId(token: string): number | undefined {
    return this.lib.token_to_id(token);
  }

  /** Whether `id` is one of the added tokens marked special (end-of-turn markers, <|im_start|>, …). */
  isSpecial(id: number): boolean {
    return this.specialIds.has(id);
  }
}

/** A tokenizer from tokenizer.json content (object or JSON text) and, when there is one, tokenizer_config.json's. */
export function loadHfTokenizer(json: TokenizerJson | string, config: TokenizerConfig = {}): HfTokenizer {
  let parsed: TokenizerJson;
  try {
    parsed = typeof json === "string" ? (JSON.parse(json) as TokenizerJson) : json;
  } catch {
    throw new TokenizerError("tokenizer.json is not valid JSON");
  }
  return new HfTokenizer(parsed, config);
}
