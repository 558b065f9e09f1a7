/**
 * The pre-flight loop a worker process runs beside training (like the re-scoring loop): claims queued checks from
 * the Preflight table, answers them with computePreflight, and prunes answers older than a day. A check a worker
 * died on is claimed again after its lease. The launch form waits a few seconds at most, so checks are quick.
 */
import type { PrismaClient } from "../../generated/prisma/client";
import type { Prisma } from "../../generated/prisma/client";
import { firstLine } from "../../lib/error-text";
import { parseRunConfig } from "../../lib/run-config";
import { storable, storableText } from "../../lib/storable";
import { createPrismaClient } from "../../db/client";
import { claimLeased, DB_NOW } from "../../db/lease-queue";
import { dataRoots } from "../data-roots";
import { createWorkerId } from "../worker/worker-id";
import { computePreflight } from "./compute";
import { createQueueErrorLog } from "../worker/queue-error-log";

const LEASE_MS = 60_000;

/**
 * A check is asked for by a launch form someone is looking at, and each edit of the form asks again: the newest is
 * the one they wait for, and one nobody has waited on for a while (the form gives up after 12 s) is not worth a
 * forward pass. Oldest-first, every visit of the launch page queued a check, and a busy worker answered the one in
 * front of the user minutes late.
 */
const PREFLIGHT_QUEUE = {
  table: "Preflight",
  countsClaims: false,
  returning: "id, config",
  order: "newest",
  onlyWhere: `"createdAt" > ${DB_NOW} - interval '2 minutes'`,
} as const;

export async function claimNextPreflight(db: PrismaClient, workerId: string): Promise<{ id: string; config: unknown } | null> {
  return claimLeased(db, PREFLIGHT_QUEUE, workerId, LEASE_MS);
}

/** Claims and answers one check; false when none was queued. */
export async function runOnePreflight(db: PrismaClient, workerId: string, dataDir: string): Promise<boolean> {
  const job = await claimNextPreflight(db, workerId);
  if (!job) return false;
  try {
    const result = await computePreflight(parseRunConfig(job.config), dataRoots(dataDir));
    await db.preflight.updateMany({
      where: { id: job.id, workerId },
      data: { status: "done", result: storable(result) as unknown as Prisma.InputJsonValue, finishedAt: new Date() },
    });
  } catch (err) {
    await db.preflight.updateMany({
      where: { id: job.id, workerId },
      data: { status: "failed", error: storableText(firstLine(err)), finishedAt: new Date() },
    });
  }
  return true;
}

export interface PreflightLoop {
  stop(): Promise<void>;
}

export function startPreflightLoop(opts: {
  db: PrismaClient;
  dataDir: string;
  pollMs?: number;
  log?: (m: string) => void;
  /** After each check answered. */
  onAnswered?: () => void;
}): PreflightLoop {
  const workerId = `${createWorkerId()}-preflight`;
  const log = opts.log ?? ((m: string) => console.log(`[preflight ${workerId}] ${m}`));
  let stopping = false;
  let lastPrune = 0;
  const errors = createQueueErrorLog(log, { baseDelayMs: opts.pollMs ?? 500 });
  const done = (async () => {
    while (!stopping) {
      let worked = false;
      let wait = opts.pollMs ?? 500;
      try {
        worked = await runOnePreflight(opts.db, workerId, opts.dataDir);
        if (worked) opts.onAnswered?.();
        if (Date.now() - lastPrune > 3_600_000) {
          lastPrune = Date.now();
          await opts.db.preflight.deleteMany({ where: { createdAt: { lt: new Date(Date.now() - 86_400_000) } } });
        }
        errors.succeeded();
      } catch (err) {
        wait = errors.failed(err);
      }
      if (!worked && !stopping) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  return {
    async stop() {
      stopping = true;
      await done;
    },
  };
}

/** For trainer/main.ts: the loop on its own small connection pool. */
export function startPreflightLoopFromEnv(databaseUrl: string, onAnswered?: () => void): void {
  startPreflightLoop({ db: createPrismaClient(databaseUrl, 2), dataDir: process.env.ROLLOUT_LAB_DATA_DIR || ".data", onAnswered });
}
