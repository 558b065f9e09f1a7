/**
 * `--wait`: poll a run until it finishes, printing a line whenever its status, step or phase changes, and turn
 * the outcome into an exit code: succeeded (and at or above --min-reward) → 0; failed, cancelled, threshold missed
 * and timeout each have their own code (exit-codes.ts).
 */
import type { ApiClient } from "./api-client";
import { EXIT, type ExitCode } from "./exit-codes";

export interface RunStatus {
  id: string;
  status: "queued" | "running" | "succeeded" | "failed" | "cancelled";
  phase: string | null;
  step: number;
  totalSteps: number;
  latestReward: number | null;
  latestMetrics: Record<string, { step: number; value: number }>;
  error: string | null;
  cancelRequested: boolean;
  url: string;
  /** A Slurm run's job (docs/slurm.md); null or absent for runs a worker trains. */
  slurm?: { description: string } | null;
}

export interface WaitOptions {
  timeoutSeconds?: number;
  minReward?: number;
  /** Metric compared with --min-reward; default the run's latest mean training reward. */
  metric?: string;
  /** The flag the bar came from, for messages (default --min-reward; `eval` has --min-pass). */
  thresholdFlag?: string;
  intervalSeconds: number;
  cancelOnTimeout?: boolean;
  log: (line: string) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const fmt = (v: number | null | undefined) => (v === null || v === undefined ? "—" : Number(v.toFixed(4)).toString());

function rewardOf(run: RunStatus, metric: string | undefined): number | null {
  if (!metric) return run.latestReward;
  return run.latestMetrics[metric]?.value ?? null;
}

export function outcome(
  run: RunStatus,
  opts: Pick<WaitOptions, "minReward" | "metric" | "thresholdFlag">,
): { code: ExitCode; message: string } {
  switch (run.status) {
    case "failed":
      return { code: EXIT.RUN_FAILED, message: `Run ${run.id} failed: ${run.error ?? "no error recorded"}` };
    case "cancelled":
      return {
        code: EXIT.RUN_CANCELLED,
        message: `Run ${run.id} was cancelled at step ${run.step}/${run.totalSteps}${run.error ? `: ${run.error}` : "."}`,
      };
    case "succeeded": {
      const reward = rewardOf(run, opts.metric);
      const label = opts.metric ?? "reward";
      if (opts.minReward !== undefined && (reward === null || reward < opts.minReward)) {
        return {
          code: EXIT.THRESHOLD_MISSED,
          message: `Run ${run.id} succeeded but ${label} ${fmt(reward)} is below ${opts.thresholdFlag ?? "--min-reward"} ${opts.minReward}.`,
        };
      }
      return { code: EXIT.OK, message: `Run ${run.id} succeeded; ${label} ${fmt(reward)}.` };
    }
    default:
      return { code: EXIT.ERROR, message: `Run ${run.id} is still ${run.status}.` };
  }
}

/** The line `--wait` prints when it changes: status, step, phase, reward, a pending cancel, and a Slurm run's job. */
export function progressLine(run: RunStatus, metric?: string): string {
  const cancel = run.cancelRequested && run.status === "running" ? " — cancel requested" : "";
  const slurm = run.slurm ? ` — ${run.slurm.description}` : "";
  return `${run.status} step ${run.step}/${run.totalSteps}${run.phase ? ` (${run.phase})` : ""} reward ${fmt(rewardOf(run, metric))}${cancel}${slurm}`;
}

export async function waitForRun(client: ApiClient, id: string, opts: WaitOptions): Promise<{ code: ExitCode; run: RunStatus }> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const started = now();
  const deadline = opts.timeoutSeconds !== undefined ? started + opts.timeoutSeconds * 1000 : Infinity;
  let last = "";
  for (;;) {
    const run = await client.json<RunStatus>("GET", `/runs/${encodeURIComponent(id)}`);
    const line = progressLine(run, opts.metric);
    if (line !== last) {
      opts.log(`[${Math.round((now() - started) / 1000)}s] ${line}`);
      last = line;
    }
    if (run.status === "succeeded" || run.status === "failed" || run.status === "cancelled") {
      const result = outcome(run, opts);
      opts.log(result.message);
      return { code: result.code, run };
    }
    if (now() >= deadline) {
      opts.log(`Timed out after ${opts.timeoutSeconds} s waiting for run ${id} (still ${run.status}).`);
      if (opts.cancelOnTimeout) {
        await client.json("POST", `/runs/${encodeURIComponent(id)}/cancel`);
        opts.log(`Requested cancellation of run ${id}.`);
      }
      return { code: EXIT.TIMEOUT, run };
    }
    await sleep(Math.max(0, Math.min(opts.intervalSeconds * 1000, deadline - now())));
  }
}
