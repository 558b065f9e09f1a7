/**
 * Which tests failed, and why, read back from the runners' own reports: node:test's TAP copy and Playwright's JSON.
 * npm test prints them under its summary and CI prints them again just above its closing count, because a CI log is
 * often read from its end only: a failure whose name and message scrolled away hundreds of lines up cannot be fixed.
 */

export interface FailedTest {
  title: string;
  /** file:line:column, when the runner gives it. */
  location?: string;
  /** The error's first lines, as the runner reported them. */
  error: string;
}

const MAX_ERROR_LINES = 8;
const MAX_LINE_CHARS = 300;

function clip(all: string[]): string {
  const lines = [...all];
  while (lines.length > 1 && lines.at(-1)?.trim() === "") lines.pop();
  const kept = lines.slice(0, MAX_ERROR_LINES).map((l) => (l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)}…` : l));
  if (lines.length > MAX_ERROR_LINES) kept.push(`… (${lines.length - MAX_ERROR_LINES} more lines)`);
  return kept.join("\n");
}

/** A YAML scalar as node's TAP reporter writes it: 'quoted' (with '' for '), "quoted" (when it holds a '), |- block, or plain. */
function yamlValue(first: string, following: string[], indent: number): string[] {
  if (first === "|-" || first === "|") {
    const block: string[] = [];
    for (const line of following) {
      if (line.trim() !== "" && line.length - line.trimStart().length <= indent) break;
      block.push(line.slice(indent + 2));
    }
    return block;
  }
  if (first.startsWith("'") && first.endsWith("'") && first.length >= 2) return [first.slice(1, -1).replaceAll("''", "'")];
  if (first.startsWith('"') && first.endsWith('"') && first.length >= 2) {
    try {
      return (JSON.parse(first) as string).split("\n");
    } catch {
      return [first.slice(1, -1)];
    }
  }
  return [first];
}

/**
 * The failed tests of a TAP report from node:test. A suite that failed only because a test inside it failed is left
 * out (that test is listed); a suite that failed on its own (a hook threw, the file timed out) is kept.
 */
export function tapFailures(tap: string, root = process.cwd()): FailedTest[] {
  const lines = tap.split("\n");
  const failures: FailedTest[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = /^(\s*)not ok \d+ - (.*)$/.exec(lines[i]);
    if (!head) continue;
    const indent = head[1].length;
    const fields = new Map<string, string[]>();
    // The diagnostics block: "---" ... "...", its keys indented two more than the "not ok" line.
    if (lines[i + 1]?.trim() === "---") {
      for (let j = i + 2; j < lines.length && lines[j].trim() !== "..."; j++) {
        const key = new RegExp(`^\\s{${indent + 2}}(\\w+): ?(.*)$`).exec(lines[j]);
        if (key) fields.set(key[1], yamlValue(key[2], lines.slice(j + 1), indent + 2));
      }
    }
    if (fields.get("failureType")?.[0] === "subtestsFailed") continue;
    failures.push({
      title: head[2].replace(/\\#/g, "#"),
      location: fields.get("location")?.[0]?.replace(`${root}/`, ""),
      error: clip(fields.get("error") ?? ["(no message)"]),
    });
  }
  return failures;
}

export interface PlaywrightReportSuite {
  title: string;
  specs?: {
    title: string;
    file?: string;
    line?: number;
    tests: { status: string; results?: { error?: { message?: string } }[] }[];
  }[];
  suites?: PlaywrightReportSuite[];
}

// Playwright colours its messages for a terminal even in its JSON report.
const ANSI = /\u001b\[[0-9;]*m/g;

/** The tests Playwright counted as failed (status "unexpected": they failed on every retry). */
export function playwrightFailures(suites: PlaywrightReportSuite[], prefix = ""): FailedTest[] {
  return suites.flatMap((s) => {
    const here = prefix ? `${prefix} › ${s.title}` : s.title;
    const own = (s.specs ?? []).flatMap((spec) =>
      spec.tests
        .filter((t) => t.status === "unexpected")
        .map((t) => {
          const message = [...(t.results ?? [])].reverse().find((r) => r.error?.message)?.error?.message ?? "(no message)";
          return {
            title: `${here} › ${spec.title}`,
            location: spec.file ? `${spec.file}:${spec.line ?? 0}` : undefined,
            error: clip(message.replace(ANSI, "").split("\n")),
          };
        }),
    );
    return [...own, ...playwrightFailures(s.suites ?? [], here)];
  });
}

/** Lines for a log: one "✖ suite: title (location)" line per failure, its message indented below. */
export function formatFailures(suite: string, failures: FailedTest[]): string[] {
  return failures.flatMap((f) => [
    `✖ ${suite}: ${f.title}${f.location ? ` (${f.location})` : ""}`,
    ...f.error.split("\n").map((l) => `    ${l}`),
  ]);
}
