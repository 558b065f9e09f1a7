/**
 * A job's stdout and stderr files (on the filesystem the launcher shares with the compute nodes) copied into the run's
 * events, so the run page's log shows what the job printed. The read position is kept on the job's row: a restarted
 * launcher continues where the last one stopped, never copying a line twice.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import { storableText } from "../../lib/storable";
import { jobOutputPaths } from "../../lib/slurm-script";

/** At most this much of one file per poll, so a job printing in a loop cannot stall the launcher. */
const MAX_READ_BYTES = 256 * 1024;
const MAX_LINE_CHARS = 4000;

/** Complete lines from `offset` (a partial last line waits for its newline unless `final`); the new offset. */
export function readNewLines(file: string, offset: number, final: boolean): { lines: string[]; offset: number } {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return { lines: [], offset }; // not created yet (the job has not started)
  }
  try {
    const size = fstatSync(fd).size;
    if (size <= offset) return { lines: [], offset };
    const buf = Buffer.alloc(Math.min(size - offset, MAX_READ_BYTES));
    const n = readSync(fd, buf, 0, buf.length, offset);
    let text = buf.subarray(0, n);
    const lastNewline = text.lastIndexOf(0x0a);
    const whole = final && offset + n === size;
    if (!whole) {
      if (lastNewline < 0) return n === MAX_READ_BYTES ? { lines: [text.toString("utf8")], offset: offset + n } : { lines: [], offset };
      text = text.subarray(0, lastNewline + 1);
    }
    const lines = text
      .toString("utf8")
      .split("\n")
      .map((l) => l.replace(/\r$/, ""));
    if (lines[lines.length - 1] === "") lines.pop();
    return { lines, offset: offset + text.length };
  } finally {
    closeSync(fd);
  }
}

/** Copy new lines of a job's two files into run events; updates the row's offsets. */
export async function copyJobOutput(
  db: PrismaClient,
  row: { id: number; runId: string; jobId: string; stdoutOffset: number; stderrOffset: number },
  logDir: string,
  final: boolean,
): Promise<void> {
  const files = jobOutputPaths(logDir, row.runId, row.jobId);
  const out = readNewLines(files.stdout, row.stdoutOffset, final);
  const err = readNewLines(files.stderr, row.stderrOffset, final);
  if (out.offset === row.stdoutOffset && err.offset === row.stderrOffset) return;
  const events: Prisma.RunEventCreateManyInput[] = [
    ...out.lines.map((line) => ({ stream: "stdout", line })),
    ...err.lines.map((line) => ({ stream: "stderr", line })),
  ]
    .filter((l) => l.line.trim() !== "")
    .map((l) => ({
      runId: row.runId,
      level: l.stream === "stderr" ? ("warn" as const) : ("info" as const),
      message: storableText(`[slurm job ${row.jobId}${l.stream === "stderr" ? " stderr" : ""}] ${l.line.slice(0, MAX_LINE_CHARS)}`),
      data: { source: "slurm", jobId: row.jobId, stream: l.stream },
    }));
  await db.$transaction([
    db.runEvent.createMany({ data: events }),
    db.slurmJob.update({ where: { id: row.id }, data: { stdoutOffset: out.offset, stderrOffset: err.offset } }),
  ]);
}
