/**
 * The text of each token, for showing a token sequence one token at a time. Decoding tokens one by one is wrong
 * for byte-level vocabularies: a character of several UTF-8 bytes spread over several tokens decodes, token by
 * token, to replacement characters. So tokens are decoded in runs: a run that ends inside a character waits for the
 * next token, and the whole character is shown on the token that completes it (the others show ""). Bytes that
 * never complete a character (an untrained policy samples them) show as U+FFFD on the last token of their run.
 */
import type { Tokenizer } from "../../../lib/tokenizer/types";

const REPLACEMENT = "\uFFFD";
/** A UTF-8 character has at most 4 bytes, so a run longer than this that still ends in U+FFFD never completes. */
const MAX_PENDING = 4;

export function tokenPieces(tok: Tokenizer, ids: readonly number[], breakBefore: (i: number) => boolean = () => false): string[] {
  const pieces: string[] = new Array(ids.length).fill("");
  let start = 0;
  for (let i = 0; i < ids.length; i++) {
    const text = tok.decode(ids.slice(start, i + 1));
    // A run never waits across a break (the caller's segment boundary, e.g. the end of a reply) or into a special
    // token: the bytes before it are all there will be, and their text belongs on this side.
    const last = i + 1 >= ids.length || breakBefore(i + 1) || isSpecial(tok, ids[i + 1]);
    const incomplete = text.endsWith(REPLACEMENT) && !last && i + 1 - start < MAX_PENDING;
    if (incomplete) continue;
    pieces[i] = text;
    start = i + 1;
  }
  return pieces;
}

function isSpecial(tok: Tokenizer, id: number): boolean {
  const text = tok.decode([id]);
  return text.length > 1 && tok.tokenId(text) === id;
}
