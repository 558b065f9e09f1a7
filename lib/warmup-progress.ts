/**
 * The SFT warm-up as it happens (grpo.sftWarmupSteps): which step it is on, the loss of every step so far and how
 * long the rest should take. The worker keeps one run event of this kind up to date (trainer/loop/prisma-sink.ts),
 * so the run page can draw the loss and an ETA while the run still shows 0 GRPO steps, and the event log keeps a
 * single line for the whole stage instead of one per step.
 */
export const WARMUP_EVENT_KIND = "sft_warmup";

export interface WarmupProgress {
  kind: typeof WARMUP_EVENT_KIND;
  /** Warm-up steps the run asked for. */
  steps: number;
  /** Steps taken so far (applied or skipped). */
  done: number;
  /** Loss of each step taken, in order; null where the step was skipped (a non-finite loss). */
  losses: (number | null)[];
  /** Seconds since the stage began (tokenising the demonstrations included). */
  elapsedSeconds: number;
  /** Seconds the remaining steps should take at the pace so far; null before the first step, 0 when done. */
  etaSeconds: number | null;
  finished: boolean;
}

/** Seconds left at the mean pace of the `done` steps taken in `elapsedSeconds`. */
export function warmupEta(done: number, steps: number, elapsedSeconds: number): number | null {
  if (done <= 0) return null;
  return Math.max(0, ((steps - done) * elapsedSeconds) / done);
}

export function formatDurationShort(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  const m = Math.round(seconds / 60);
  return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** The event log's one line for the stage. */
export function describeWarmup(p: WarmupProgress): string {
  const last = [...p.losses].reverse().find((l): l is number => l !== null);
  const first = p.losses.find((l): l is number => l !== null);
  const loss = last === undefined ? "" : `, loss ${first !== undefined && p.done > 1 ? `${first.toFixed(3)} → ` : ""}${last.toFixed(3)}`;
  if (p.finished) return `SFT warm-up: ${p.done} of ${p.steps} steps done in ${formatDurationShort(p.elapsedSeconds)}${loss}.`;
  const eta = p.etaSeconds === null ? "" : `, about ${formatDurationShort(p.etaSeconds)} left`;
  return `SFT warm-up: step ${p.done} of ${p.steps}${loss}${eta}.`;
}

export function isWarmupProgress(data: unknown): data is WarmupProgress {
  const d = data as Partial<WarmupProgress> | null;
  return typeof d === "object" && d !== null && d.kind === WARMUP_EVENT_KIND && typeof d.steps === "number" && Array.isArray(d.losses);
}
