import { test } from "node:test";
import assert from "node:assert/strict";
import { assertValidFormEncoding, readBodyText } from "./input-safety";
import { AppError } from "../errors";

const post = (body: Uint8Array<ArrayBuffer>) => new Request("http://x/api/v1/runs", { method: "POST", body });

test("a body that is not valid UTF-8 is a 400, never text with U+FFFD in place of the bytes", async () => {
  for (const bytes of [
    [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d], // {"a":"\xff"}
    [0x22, 0xc3, 0x22], // a truncated two-byte sequence
    [0x22, 0xed, 0xa0, 0x80, 0x22], // an encoded UTF-16 surrogate (CESU-8)
    [0x22, 0xc0, 0xaf, 0x22], // an overlong "/"
  ]) {
    await assert.rejects(
      readBodyText(post(new Uint8Array(bytes)), 1024),
      (e: unknown) => e instanceof AppError && e.code === "BAD_REQUEST" && /not valid UTF-8/.test(e.message),
      JSON.stringify(bytes),
    );
  }
  assert.equal(await readBodyText(post(new TextEncoder().encode('{"a":"é ✓ 😀"}')), 1024), '{"a":"é ✓ 😀"}');
  assert.equal(await readBodyText(post(new Uint8Array([0xef, 0xbf, 0xbd])), 1024), "\ufffd", "an encoded U+FFFD is valid text");
});

test("a form whose escapes are not UTF-8 is a 400 naming the field", () => {
  assert.throws(() => assertValidFormEncoding("password=%FF&next=%2Fruns"), /"password" is not valid UTF-8/);
  assert.throws(() => assertValidFormEncoding("next=%2Fruns&tag=%E9"), /"tag".*not valid UTF-8/);
  assertValidFormEncoding("tag=caf%C3%A9&x=a+b&y=100%25");
  assertValidFormEncoding("");
  assert.throws(() => assertValidFormEncoding("next=a=%FF"), /"next"/, "a value holding '=' is checked whole");
});
