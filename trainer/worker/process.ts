/**
 * The worker process: resolve and check the database, run a TrainerWorker until SIGTERM / SIGINT, then let the
 * current run stop at a step boundary (checkpointed, back in the queue) and exit 0. A second signal exits at once
 * (the run's lease then expires and another worker resumes it from its last checkpoint).
 */
import { createPrismaClient } from "../../db/client";
import { checkWorkerDatabase, resolveWorkerDatabaseUrl } from "./database";
import { TrainerWorker, type RunExecutor } from "./worker";
import { checkWorkerEnv, readEnvVar } from "../../lib/env";

export interface WorkerProcessOptions {
  executeRun: RunExecutor;
  leaseMs?: number;
  heartbeatMs?: number;
  pollMs?: number;
  /** Started once the database is known to work, e.g. the re-scoring loop beside training. */
  alongside?: (databaseUrl: string) => void;
}

export async function runWorkerProcess(opts: WorkerProcessOptions): Promise<never> {
  let url: string;
  let embeddedDefault: boolean;
  try {
    checkWorkerEnv();
    ({ url, embeddedDefault } = resolveWorkerDatabaseUrl());
    await checkWorkerDatabase(url, embeddedDefault);
  } catch (err) {
    console.error(`[worker] ${(err as Error).message}`);
    process.exit(1);
  }
  opts.alongside?.(url);
  const db = createPrismaClient(url, 3);
  const worker = new TrainerWorker({
    db,
    databaseUrl: url,
    executeRun: opts.executeRun,
    leaseMs: opts.leaseMs ?? readEnvVar("WORKER_LEASE_MS"),
    heartbeatMs: opts.heartbeatMs ?? readEnvVar("WORKER_HEARTBEAT_MS"),
    pollMs: opts.pollMs ?? readEnvVar("WORKER_POLL_MS"),
  });
  const onSignal = (signal: string) => {
    if (worker.isStopping) {
      console.log(`[worker ${worker.workerId}] ${signal} again: exiting now; the run will be resumed after its lease expires.`);
      process.exit(1);
    }
    console.log(`[worker ${worker.workerId}] ${signal}: stopping at the next step boundary…`);
    worker.stop();
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  console.log(`[worker ${worker.workerId}] waiting for runs on ${new URL(url).host}${embeddedDefault ? " (embedded database)" : ""}`);
  await worker.start();
  await db.$disconnect();
  process.exit(0);
}
