import { test } from "node:test";
import assert from "node:assert/strict";
import { ByteTokenizer } from "./byte";
import { tokenPieces } from "./token-pieces";

const tok = new ByteTokenizer();

test("a character spread over byte tokens shows whole on the token that completes it; the pieces add up to the text", () => {
  const text = "<|im_start|>assistant\nhé 😀 ok<|im_end|>";
  const ids = tok.encode(text);
  const pieces = tokenPieces(tok, ids);
  assert.equal(pieces.length, ids.length);
  assert.equal(pieces.join(""), text);
  assert.equal(pieces[0], "<|im_start|>", "a chat-template marker is one piece");
  const e = pieces.indexOf("é");
  assert.deepEqual([pieces[e - 1], pieces[e]], ["", "é"], "é is two bytes: the first shows nothing");
  const emoji = pieces.indexOf("😀");
  assert.deepEqual(pieces.slice(emoji - 3, emoji + 1), ["", "", "", "😀"], "a four-byte emoji lands on its last byte");
  assert.ok(!pieces.some((p) => p.includes("\uFFFD")), "no replacement characters for valid text");
});

test("bytes that never form a character are shown (as U+FFFD) rather than swallowed", () => {
  const ids = [0xff, 0x61, 0x62]; // an invalid lead byte, then "ab"
  const pieces = tokenPieces(tok, ids);
  assert.equal(pieces.join(""), tok.decode(ids));
  assert.ok(pieces.join("").startsWith("\uFFFD"));
  assert.equal(pieces.at(-1), "b", "text after the bad byte gets its own pieces again");
  assert.deepEqual(tokenPieces(tok, [0xe2, 0x82]), ["", "\uFFFD"], "a sequence cut mid-character ends with what it has");
});

test("a run never waits across a caller's break or into a special token: a reply's stray bytes stay in the reply", () => {
  const reply = [0x39, 0xf0, 0x9f]; // "9" then the start of a 4-byte character the policy never finished
  const ids = [...reply, ...tok.encode("<|im_end|>\nnext")];
  const pieces = tokenPieces(tok, ids, (i) => i === 3);
  assert.equal(pieces.slice(0, 3).join(""), tok.decode(reply), "the reply's pieces are the reply's text");
  assert.equal(pieces[3], "<|im_end|>", "the marker keeps its own piece");
  const noBreak = tokenPieces(tok, [0x39, 0xe2, ...tok.encode("<|im_end|>")]);
  assert.deepEqual(noBreak, ["9", "\uFFFD", "<|im_end|>"], "a special token ends the run before it");
});
