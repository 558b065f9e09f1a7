/**
 * How a worker's polling loops (runs, pre-flight checks, re-scoring) report a failed poll. While training blocks the
 * event loop (a long TF.js step), every side loop's database transaction can expire: one such stretch printed 191
 * identical "queue error: Transaction API error…" lines. The first of a kind is logged with what it usually means;
 * repeats within a minute are counted and summed up in one line when the loop recovers or the minute is over, and
 * the loop waits longer after each failure in a row (doubling up to `maxDelayMs`) instead of hammering a database
 * it cannot reach.
 */
import { firstLine } from "../../lib/error-text";

export interface QueueErrorLog {
  /** Logs (or counts) a failed poll; returns how long to wait before the next one. */
  failed(err: unknown): number;
  /** A poll succeeded: sums up the repeats, if any, and resets the back-off. */
  succeeded(): void;
}

/** Ids and counts vary between otherwise identical errors (a transaction's id, a timeout's milliseconds). */
const kindOf = (message: string) => message.replace(/[0-9a-f]{8,}(-[0-9a-f]{4,})*/gi, "…").replace(/\d+/g, "#");

const BUSY = /Transaction API error|expired transaction|Transaction already closed|Unable to start a transaction in the given time/i;

export function createQueueErrorLog(
  log: (message: string) => void,
  opts: { baseDelayMs: number; maxDelayMs?: number; windowMs?: number; now?: () => number },
): QueueErrorLog {
  const now = opts.now ?? Date.now;
  const windowMs = opts.windowMs ?? 60_000;
  const maxDelayMs = opts.maxDelayMs ?? 10_000;
  let kind: string | null = null;
  let since = 0;
  let repeats = 0;
  let inARow = 0;
  const flush = () => {
    if (repeats > 0)
      log(`queue error: the same error ${repeats} more time${repeats === 1 ? "" : "s"} in ${Math.round((now() - since) / 1000)} s`);
    repeats = 0;
  };
  return {
    failed(err) {
      const message = firstLine(err);
      const k = kindOf(message);
      inARow++;
      if (k === kind && now() - since < windowMs) repeats++;
      else {
        flush();
        kind = k;
        since = now();
        const hint = BUSY.test(message)
          ? " (this worker was too busy to finish a database transaction in time, usually a long training computation; retrying)"
          : "";
        log(`queue error: ${message}${hint}`);
      }
      return Math.min(maxDelayMs, opts.baseDelayMs * 2 ** Math.min(inARow - 1, 16));
    },
    succeeded() {
      flush();
      kind = null;
      inARow = 0;
    },
  };
}
