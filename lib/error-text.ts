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
 * Absolute file paths (and file:// URLs) reduced to their last part: an error a browser shows must not reveal
 * where the server keeps its files ("imported from /home/ops/rollout-lab/trainer/backend/select.ts" → "select.ts").
 */
export function withoutFilePaths(text: string): string {
  return text.replace(/(?<![\w.@+~-])(?:file:\/\/)?(?:[A-Za-z]:)?(?:[\\/][\w.@+~-]+)+[\\/]([\w.@+~-]+)/g, (_m, last: string) => last);
}
