/**
 * Errors as one line of text for a run's error field, events and logs. Many messages start with a newline (Prisma's
 * "\nInvalid `prisma.x()` invocation…") or carry a multi-line dump (zod's JSON of its issues), and taking their
 * literal first line stored an empty error or a lone "[".
 */
import type { ZodError } from "zod";

const MAX_LINE = 500;

export function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line =
    text
      .split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? (err instanceof Error ? err.name : "unknown error");
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line;
}

/** zod issues as "path: message; …" (`whole` names the input when an issue has no path). */
export function describeZodIssues(error: ZodError, whole = "(input)"): string {
  return error.issues.map((i) => `${i.path.join(".") || whole}: ${i.message}`).join("; ");
}

/** A config section validated by `schema`, or an Error naming `what` and every problem on one line. */
export function parseOptions<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: ZodError } },
  value: unknown,
  what: string,
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`Invalid ${what}: ${describeZodIssues(parsed.error, "options")}`);
  return parsed.data;
}

/**
 * Text that came from somewhere we do not trust (an endpoint's error body, a parser's quote of it), cut to a short
 * excerpt that is safe to store and show: no markup, no control characters, at most `max` characters. A run
 * config could point the trainer at any listener; what that listener says must not come back through the API.
 */
export function untrustedExcerpt(text: string, max = 200): string {
  const plain = text
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<[^>]*>?/g, " ")
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
}

/**
 * Absolute file paths (and file:// URLs) reduced to their last part: an error a browser shows must not reveal
 * where the server keeps its files ("imported from /home/ops/rollout-lab/trainer/backend/select.ts" → "select.ts").
 */
export function withoutFilePaths(text: string): string {
  return text.replace(/(?<![\w.@+~-])(?:file:\/\/)?(?:[A-Za-z]:)?(?:[\\/][\w.@+~-]+)+[\\/]([\w.@+~-]+)/g, (_m, last: string) => last);
}
