/** What the trainer needs from a tokenizer: the built-in byte tokenizer and Hugging Face tokenizer.json both provide it. */
export interface Tokenizer {
  readonly vocabSize: number;
  /** Encodes text; special-token strings inside the text (e.g. "<|im_end|>") become their single ids. */
  encode(text: string): number[];
  decode(ids: number[]): string;
  /** id of a special/added token by its text, or undefined. */
  tokenId(token: string): number | undefined;
  /** Whether `id` is a special token (a turn marker such as <|im_end|>, never a piece of ordinary text). */
  isSpecial(id: number): boolean;
  readonly eosId: number;
  readonly padId: number;
}

export class TokenizerError extends Error {
  readonly code = "TOKENIZER_UNSUPPORTED";
  constructor(message: string) {
    super(message);
    this.name = "TokenizerError";
  }
}

/** Splits `text` around occurrences of the given special strings (longest first), keeping them as separate pieces. */
export function splitOnSpecials(text: string, specials: string[]): { text: string; special: boolean }[] {
  if (!specials.length) return [{ text, special: false }];
  const sorted = [...specials].sort((a, b) => b.length - a.length);
  const escaped = sorted.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const re = new RegExp(`(${escaped.join("|")})`, "g");
  const parts: { text: string; special: boolean }[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    const i = m.index ?? 0;
    if (i > last) parts.push({ text: text.slice(last, i), special: false });
    parts.push({ text: m[0], special: true });
    last = i + m[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), special: false });
  return parts;
}
