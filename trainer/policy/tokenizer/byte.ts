/**
 * Built-in byte tokenizer: ids 0-255 are UTF-8 bytes, followed by the ChatML special tokens. Needs no files, so tiny
 * policies and tests run offline; any text round-trips exactly.
 */
import { splitOnSpecials, type Tokenizer } from "../../../lib/tokenizer/types";

export const BYTE_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"] as const;

export class ByteTokenizer implements Tokenizer {
  readonly vocabSize = 256 + BYTE_SPECIALS.length;
  readonly eosId = 256;
  readonly padId = 256;
  private readonly enc = new TextEncoder();
  private readonly dec = new TextDecoder();

  encode(text: string): number[] {
    const out: number[] = [];
    for (const part of splitOnSpecials(text, [...BYTE_SPECIALS])) {
      if (part.special) out.push(this.tokenId(part.text) as number);
      else out.push(...this.enc.encode(part.text));
    }
    return out;
  }

  decode(ids: number[]): string {
    let s = "";
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length) s += this.dec.decode(new Uint8Array(bytes));
      bytes = [];
    };
    for (const id of ids) {
      if (id < 256) bytes.push(id);
      else {
        flush();
        s += BYTE_SPECIALS[id - 256] ?? "";
      }
    }
    flush();
    return s;
  }

  isSpecial(id: number): boolean {
    return id >= 256 && id < this.vocabSize;
  }

  tokenId(token: string): number | undefined {
    const i = (BYTE_SPECIALS as readonly string[]).indexOf(token);
    return i < 0 ? undefined : 256 + i;
  }
}
