/**
 * Reads a Hugging Face `tokenizer.json` with a BPE model (Sennrich et al. 2016): byte-level BPE as in GPT-2 /
 * Qwen2 / Llama 3 (regex pre-split, bytes mapped to printable characters, ranked merges) and SentencePiece-style
 * BPE with "▁" word markers and <0xXX> byte fallback (Llama 2). Added / special tokens are matched literally before
 * pre-tokenisation, as the `tokenizers` library does. Other models (Unigram, WordPiece, WordLevel) are rejected.
 */
import { splitOnSpecials, TokenizerError, type Tokenizer } from "./types";

interface AddedToken {
  id: number;
  content: string;
  special?: boolean;
}

interface PreTokenizerSpec {
  type: string;
  pattern?: { Regex?: string; String?: string };
  behavior?: string;
  invert?: boolean;
  add_prefix_space?: boolean;
  use_regex?: boolean;
  pretokenizers?: PreTokenizerSpec[];
  prepend_scheme?: string;
  replacement?: string;
}

export interface TokenizerJson {
  added_tokens?: AddedToken[];
  normalizer?: {
    type: string;
    normalizers?: { type: string; prepend?: string; pattern?: { String?: string }; content?: string }[];
    prepend?: string;
  } | null;
  pre_tokenizer?: PreTokenizerSpec | null;
  model: {
    type?: string;
    vocab?: Record<string, number>;
    merges?: (string | [string, string])[];
    byte_fallback?: boolean;
    unk_token?: string | null;
    ignore_merges?: boolean;
  };
  decoder?: { type: string } | null;
}

const GPT2_PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

/** GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to U+0100 onwards. */
function byteToUnicode(): string[] {
  const table: string[] = new Array(256);
  let n = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    table[b] = String.fromCodePoint(printable ? b : 256 + n++);
  }
  return table;
}

/** Rewrites Oniguruma's `(?i:...)` groups (Qwen2 / Llama 3 contractions) into JS-compatible character classes. */
export function toJsRegex(pattern: string): RegExp {
  const js = pattern.replace(
    /\(\?i:([^()]*)\)/g,
    (_, body: string) => `(?:${body.replace(/[a-zA-Z]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`)})`,
  );
  try {
    return new RegExp(js, "gu");
  } catch (e) {
    throw new TokenizerError(`tokenizer.json pre-tokenizer regex cannot be used in JavaScript: ${(e as Error).message}`);
  }
}

function splitIsolated(text: string, re: RegExp): string[] {
  const out: string[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    const i = m.index ?? 0;
    if (i > last) out.push(text.slice(last, i));
    if (m[0]) out.push(m[0]);
    last = i + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export class HfBpeTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly eosId: number;
  readonly padId: number;
  private readonly vocab: Map<string, number>;
  private readonly idToToken: string[] = [];
  private readonly ranks = new Map<string, number>();
  private readonly added = new Map<string, number>();
  private readonly addedById = new Map<number, string>();
  private readonly splitters: RegExp[] = [];
  private readonly byteLevel: boolean;
  private readonly prefixSpace: boolean;
  private readonly b2u = byteToUnicode();
  private readonly u2b = new Map<string, number>();
  private readonly cache = new Map<string, number[]>();

  constructor(private readonly json: TokenizerJson) {
    const type = json.model?.type ?? (json.model?.merges ? "BPE" : "unknown");
    if (type !== "BPE") {
      throw new TokenizerError(
        `tokenizer.json model type "${type}" is not supported; only BPE tokenizers (byte-level or SentencePiece BPE) can be loaded.`,
      );
    }
    this.vocab = new Map(Object.entries(json.model.vocab ?? {}));
    for (const [tok, id] of this.vocab) this.idToToken[id] = tok;
    (json.model.merges ?? []).forEach((m, i) => this.ranks.set(Array.isArray(m) ? `${m[0]} ${m[1]}` : m, i));
    for (const t of json.added_tokens ?? []) {
      this.added.set(t.content, t.id);
      this.addedById.set(t.id, t.content);
    }
    this.b2u.forEach((u, b) => this.u2b.set(u, b));
    const pre = json.pre_tokenizer;
    const list = pre ? (pre.type === "Sequence" ? (pre.pretokenizers ?? []) : [pre]) : [];
    let byteLevel = json.decoder?.type === "ByteLevel";
    let prefixSpace = false;
    for (const p of list) {
      if (p.type === "ByteLevel") {
        byteLevel = true;
        prefixSpace = p.add_prefix_space === true;
        if (p.use_regex !== false) this.splitters.push(toJsRegex(GPT2_PATTERN));
      } else if (p.type === "Split" && p.pattern?.Regex) {
        if (p.invert) throw new TokenizerError("Split pre-tokenizers with invert=true are not supported");
        this.splitters.push(toJsRegex(p.pattern.Regex));
      } else if (p.type === "Split" && p.pattern?.String !== undefined) {
        this.splitters.push(new RegExp(p.pattern.String.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gu"));
      } else if (p.type !== "Metaspace") {
        throw new TokenizerError(`pre-tokenizer "${p.type}" is not supported (ByteLevel, Split and Metaspace are)`);
      }
    }
    this.byteLevel = byteLevel;
    this.prefixSpace = prefixSpace;
    // a loop, not Math.max(...ids): spreading a real vocabulary (151,643 ids for Qwen2) overflows the call stack
    let maxId = 0;
    for (const id of [this.vocab.values(), this.added.values()].flatMap((ids) => [...ids])) if (id > maxId) maxId = id;
    this.vocabSize = maxId + 1;
    const find = (names: string[]) => names.map((n) => this.tokenId(n)).find((id) => id !== undefined);
    this.eosId = find(["<|im_end|>", "<|eot_id|>", "<|endoftext|>", "<|end_of_text|>", "</s>", "<eos>"]) ?? 0;
    this.padId = find(["<|endoftext|>", "<pad>", "<|finetune_right_pad_id|>"]) ?? this.eosId;
  }

  tokenId(token: string): number | undefined {
    return this.added.get(token) ?? this.vocab.get(token);
  }

  /** Applies ranked merges to one pre-token (already in the model's alphabet). */
  private bpe(word: string): number[] {
    const hit = this.cache.get(word);
    if (hit) return hit;
    let out: number[];
    const whole = this.vocab.get(word);
    if (whole !== undefined && (this.json.model.ignore_merges || [...word].length === 1)) out = [whole];
    else {
      let syms = [...word];
      for (;;) {
        let best = -1;
        let bestRank = Infinity;
        for (let i = 0; i < syms.length - 1; i++) {
          const r = this.ranks.get(`${syms[i]} ${syms[i + 1]}`);
          if (r !== undefined && r < bestRank) {
            bestRank = r;
            best = i;
          }
        }
        if (best < 0) break;
        syms = [...syms.slice(0, best), syms[best] + syms[best + 1], ...syms.slice(best + 2)];
      }
      out = syms.flatMap((s) => this.symbolIds(s));
    }
    if (this.cache.size < 50000) this.cache.set(word, out);
    return out;
  }

  private symbolIds(s: string): number[] {
    const id = this.vocab.get(s);
    if (id !== undefined) return [id];
    if (!this.byteLevel && this.json.model.byte_fallback) {
      return [...new TextEncoder().encode(s)].map((b) => {
        const bid = this.vocab.get(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
        if (bid === undefined) throw new TokenizerError(`byte fallback token for 0x${b.toString(16)} missing from vocab`);
        return bid;
      });
    }
    const unk = this.json.model.unk_token ? this.vocab.get(this.json.model.unk_token) : undefined;
    if (unk === undefined) throw new TokenizerError(`symbol ${JSON.stringify(s)} is not in the vocabulary and there is no unk_token`);
    return [unk];
  }

  private encodeOrdinary(text: string): number[] {
    if (!text) return [];
    if (this.byteLevel) {
      let pieces = [this.prefixSpace && !text.startsWith(" ") ? ` ${text}` : text];
      for (const re of this.splitters) pieces = pieces.flatMap((p) => splitIsolated(p, re));
      return pieces.flatMap((p) => this.bpe([...new TextEncoder().encode(p)].map((b) => this.b2u[b]).join("")));
    }
    // SentencePiece-style: spaces become "▁" and a "▁" is prepended (Llama 2's normalizer / Metaspace).
    return this.bpe(`▁${text.replace(/ /g, "▁")}`);
  }

  encode(text: string): number[] {
    return splitOnSpecials(text, [...this.added.keys()]).flatMap((p) =>
      p.special ? [this.added.get(p.text) as number] : this.encodeOrdinary(p.text),
    );
  }

  decode(ids: number[]): string {
    let out = "";
    let bytes: number[] = [];
    const flush = () => {
      out += new TextDecoder().decode(new Uint8Array(bytes));
      bytes = [];
    };
    for (const id of ids) {
      const added = this.addedById.get(id);
      if (added !== undefined) {
        flush();
        out += added;
        continue;
      }
      const tok = this.idToToken[id] ?? "";
      if (this.byteLevel) for (const ch of tok) bytes.push(this.u2b.get(ch) ?? 0x3f);
      else {
        const m = /^<0x([0-9A-Fa-f]{2})>$/.exec(tok);
        if (m) bytes.push(parseInt(m[1], 16));
        else {
          flush();
          out += tok.replace(/▁/g, " ");
        }
      }
    }
    flush();
    return this.byteLevel ? out : out.replace(/^ /, "");
  }
}

/** Parses tokenizer.json content (object or JSON text). */
export function loadHfTokenizer(json: TokenizerJson | string): HfBpeTokenizer {
  return new HfBpeTokenizer(typeof json === "string" ? (JSON.parse(json) as TokenizerJson) : json);
}
