/**
 * Input every API (REST and tRPC) refuses with a 400 before it reaches a procedure: text PostgreSQL cannot store
 * (NUL; lone UTF-16 surrogates, which jsonb rejects), bytes that are not UTF-8 (which would be stored as U+FFFD)
 * and nesting deeper than any field of the API. Without this check such input reached the database driver and came
 * back as a 500, or was stored altered.
 */
import { AppError } from "../errors";

/** No field of the API nests deeper; JSON.parse accepts far more than any recursive walk should. */
export const MAX_INPUT_DEPTH = 32;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function checkText(s: string, at: string[]): void {
  const where = at.join(".") || "The input";
  if (s.includes("\u0000"))
    throw new AppError("BAD_REQUEST", `${where} contains a NUL character (\\u0000), which is not allowed.`, at.join(".") || undefined);
  if (LONE_SURROGATE.test(s)) {
    throw new AppError(
      "BAD_REQUEST",
      `${where} contains an unpaired UTF-16 surrogate (invalid Unicode); send well-formed text.`,
      at.join(".") || undefined,
    );
  }
}

export function assertSafeInput(value: unknown, at: string[] = []): void {
  if (at.length > MAX_INPUT_DEPTH) {
    throw new AppError(
      "BAD_REQUEST",
      `The input is nested more than ${MAX_INPUT_DEPTH} levels deep at ${at.slice(0, 6).join(".")}…; no field of this API is that deep.`,
    );
  }
  if (typeof value === "string") checkText(value, at);
  else if (Array.isArray(value)) value.forEach((v, i) => assertSafeInput(v, [...at, String(i)]));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      checkText(k, at);
      assertSafeInput(v, [...at, k]);
    }
  }
}

/**
 * Every API body (REST, tRPC) fits in 1 MiB: a RunConfig is a few KiB. The same figure is in next.config.js (how much
 * of a body Next buffers) and scripts/http-guard.mjs (Content-Length refused before the body is read).
 */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

/** Reads at most `maxBytes` of a request body as text: 413 beyond, whatever Content-Length claims. */
export async function readBodyText(req: Request, maxBytes: number): Promise<string> {
  const tooLarge = () =>
    new AppError("PAYLOAD_TOO_LARGE", `The request body is larger than the ${maxBytes.toLocaleString("en-US")} bytes this API accepts.`);
  if (Number(req.headers.get("content-length") ?? "0") > maxBytes) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  return decodeUtf8(Buffer.concat(chunks));
}

/**
 * Strict UTF-8: Buffer#toString replaced each invalid byte with U+FFFD and the text was stored changed, without a
 * word to the sender. Overlong forms and encoded surrogates are invalid too.
 */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new AppError(
      "BAD_REQUEST",
      `The request body is not valid UTF-8 (at byte ${firstInvalidByte(bytes)}); send text encoded as UTF-8.`,
    );
  }
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence (for the error message). */
function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const len = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (len === 0 || i + len > bytes.length) return i;
    try {
      strictUtf8.decode(bytes.subarray(i, i + len));
    } catch {
      return i;
    }
    i += len;
  }
  return i;
}

/**
 * An application/x-www-form-urlencoded body ("a=1&b=%C3%A9") whose %-escapes must decode to UTF-8: URLSearchParams
 * would read "%FF" as U+FFFD. Names the field. (Query strings are checked by scripts/http-guard.mjs: Next re-encodes
 * them before a route sees them, U+FFFD included.)
 */
export function assertValidFormEncoding(raw: string): void {
  if (raw === "") return;
  for (const pair of raw.split("&")) {
    const eq = pair.indexOf("=");
    const [name, value] = (eq < 0 ? [pair, ""] : [pair.slice(0, eq), pair.slice(eq + 1)]).map((part) => part.replace(/\+/g, " "));
    for (const part of [name, value]) {
      try {
        decodeURIComponent(part);
      } catch {
        let shown = name;
        try {
          shown = decodeURIComponent(name);
        } catch {
          // the name itself is the bad part
        }
        throw new AppError(
          "BAD_REQUEST",
          `The field "${shown.slice(0, 60)}" is not valid UTF-8 once %-decoded (or has a broken %-escape); encode values with encodeURIComponent.`,
          shown.slice(0, 60) || undefined,
        );
      }
    }
  }
}
