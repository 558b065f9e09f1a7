/**
 * The re-scoring loop a worker process runs beside its training loop: re-judging stored trajectories must not wait
 * for a long training run to finish, and needs no GPU/TF.js — only the judge. One job at a time per process.
 */
import type { PrismaClient } from "../../generated/prisma/client";
import { createPrismaClient } from "../../db/client";
import { createWorkerId } from "../worker/worker-id";
import { executeRescoring } from "./execute";
import { claimNextRescoring } from "./queue";
import { readEnvVar } from "../../lib/env";
import { createQueueErrorLog } from "../worker/queue-error-log";

export interface RescoringLoopOptions {
  db: PrismaClient;
  workerId?: string;
  pollMs?: number;
  leaseMs?: number;
  log?: (message: string) => void;
}

export interface RescoringLoop {
  stop(): Promise<void>;
}

/** Claim and execute one job. Returns false when the queue was empty. */
export async function runOneRescoring(
  db: PrismaClient,
  workerId: string,
  leaseMs = 60_000,
  log: (m: string) => void = () => {},
): Promise<boolean> {
  const id = await claimNextRescoring(db, workerId, leaseMs);
  if (!id) return false;
  log(`re-scoring job ${id} claimed`);
  const outcome = await executeRescoring(db, id, { workerId, leaseMs });
  log(`re-scoring job ${id}: ${outcome}`);
  return true;
}

export function startRescoringLoop(opts: RescoringLoopOptions): RescoringLoop {
  const workerId = opts.workerId ?? `${createWorkerId()}-rescore`;
  const log = opts.log ?? ((m: string) => console.log(`[rescore ${workerId}] ${m}`));
  let stopping = false;
  let wake: (() => void) | null = null;
  const errors = createQueueErrorLog(log, { baseDelayMs: opts.pollMs ?? 2_000 });
  const done = (async () => {
    while (!stopping) {
      let worked = false;
      let wait = opts.pollMs ?? 2_000;
      try {
        worked = await runOneRescoring(opts.db, workerId, opts.leaseMs, log);
        errors.succeeded();
      } catch (err) {
        wait = errors.failed(err);
      }
      if (!worked && !stopping) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, wait);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        wake = null;
      }
    }
  })();
  return {
    async stop() {
      stopping = true;
      (wake as (() => void) | null)?.();
      await done;
    },
  };
}

/** For trainer/main.ts: the loop on its own small connection pool to the worker's database. */
export function startRescoringLoopFromEnv(url: string): RescoringLoop {
  return startRescoringLoop({ db: createPrismaClient(url, 2), pollMs: readEnvVar("WORKER_POLL_MS") });
}
