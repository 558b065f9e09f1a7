/**
 * Input every API (REST and tRPC) refuses with a 400 before it reaches a procedure: text PostgreSQL cannot store
 * (NUL; lone UTF-16 surrogates, which jsonb rejects) and nesting deeper than any field of the API. Without this
 * check such input reached the database driver and came back as a 500.
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
  return Buffer.concat(chunks).toString("utf8");
}
